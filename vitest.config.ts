import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "**/*.test.ts"],
    // Kill trials (`*.kill.test.ts`: real processes killed mid-run and resumed) run with the
    // reliability suite, which CI runs too: they take a third of a minute each.
    exclude: ["node_modules/**", "dist/**", "test/reliability/**", "**/*.kill.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The CLI and the run children compiled once: the processes tests start skip tsx's compiling.
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    // Vitest uses half the cores by default (one worker on a 2-core machine); the files wait on
    // processes, sockets and databases as much as on the CPU, so two workers halve the wall time.
    maxWorkers: 2,
  },
});
