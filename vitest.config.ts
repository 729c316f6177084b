import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**", "test/reliability/**"],
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
