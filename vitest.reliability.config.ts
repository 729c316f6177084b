import { defineConfig } from "vitest/config";

// `npm run test:reliability`: the hardening suite (issue 11). Its files run one after another,
// each with its own processes and timing-sensitive parts, and the global teardown scans
// everything they produced for secrets and prints the figures.
export default defineConfig({
  test: {
    // The main suite's kill trials (`*.kill.test.ts`) and process trials (`*.processes.test.ts`:
    // several real processes at once, or one restarted) run here, one file at a time: their
    // processes' CPU kept `npm test` over its 6 minutes on 2 cores, and CI runs this suite too.
    include: ["test/reliability/**/*.test.ts", "test/**/*.kill.test.ts", "test/**/*.processes.test.ts"],
    globalSetup: ["test/reliability/global-setup.ts"],
    setupFiles: ["test/setup.ts", "test/reliability/setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
  },
});
