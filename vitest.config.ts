import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "**/*.test.ts"],
    // Kill trials (`*.kill.test.ts`: real processes killed mid-run and resumed) run with the
    // reliability suite, which CI runs too: they take a third of a minute each. So do the
    // process trials (`*.processes.test.ts`: several real processes at once, or one restarted):
    // each costs seconds of CPU per process started, which kept `npm test` over its 6 minutes.
    exclude: [
      "node_modules/**",
      "dist/**",
      "test/reliability/**",
      "**/*.kill.test.ts",
      "**/*.processes.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The CLI and the run children compiled once: the processes tests start skip tsx's compiling.
    globalSetup: ["test/global-setup.ts"],
    // The one hook that undoes what a test's helpers started (test/helpers/after-test.ts).
    setupFiles: ["test/setup.ts"],
    pool: "forks",
    // A worker imports the code once for all its files instead of once per file: importing took
    // 125 of the suite's 367 s with one core busy. Files share no state the tests rely on (helpers
    // undo what they start after each test); stubbed variables are restored after each test.
    isolate: false,
    unstubEnvs: true,
    unstubGlobals: true,
    // Vitest uses half the cores by default (one worker on a 2-core machine); the files wait on
    // processes, sockets and databases as much as on the CPU, so two workers halve the wall time.
    maxWorkers: 2,
  },
});
