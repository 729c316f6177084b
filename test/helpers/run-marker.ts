import childProcess from "node:child_process";
import { randomBytes } from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

/**
 * Names the test run in the environment: set by the suite's global setup, inherited by the test
 * workers and by every process a test starts (and by theirs), detached or not. What still carries
 * it once all tests are done was left behind by a test (test/helpers/leftovers.ts).
 */
export const RUN_MARKER_ENV = "SKILLSYNC_TEST_RUN";

/** A new marker for a run, put into `process.env` for the workers and processes to inherit. */
export function markRun(): string {
  const marker = `${process.pid}-${randomBytes(6).toString("hex")}`;
  process.env[RUN_MARKER_ENV] = marker;
  return marker;
}

const MARKED = Symbol("marks the run's processes");

/** `args` with the options object's own `env` (when given, without a marker) carrying the run's. */
function withMarker(args: unknown[], marker: string): unknown[] {
  // The options object is the first plain object after the command (arguments and callback aside).
  const at = args.findIndex((a, i) => i > 0 && typeof a === "object" && a !== null && !Array.isArray(a));
  const options = args[at] as { env?: NodeJS.ProcessEnv } | undefined;
  if (!options?.env || RUN_MARKER_ENV in options.env) return args;
  const marked = [...args];
  marked[at] = { ...options, env: { ...options.env, [RUN_MARKER_ENV]: marker } };
  return marked;
}

/**
 * Makes every process this one starts carry the run's marker, also when a test hands it an
 * environment of its own (without the machine's variables): `child_process`'s functions add it to
 * the `env` they are given. Run in each test worker (test/setup.ts); once is enough.
 */
export function markChildProcesses(): void {
  const marker = process.env[RUN_MARKER_ENV];
  const cp = childProcess as unknown as Record<
    string,
    ((...args: unknown[]) => unknown) & { [MARKED]?: true }
  >;
  if (!marker || cp["spawn"]?.[MARKED]) return;
  for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"]) {
    const original = cp[name];
    if (!original) continue;
    const marking = Object.assign((...args: unknown[]) => original(...withMarker(args, marker)), {
      [MARKED]: true as const,
    });
    cp[name] = marking;
  }
  // The named imports (`import { spawn } from "node:child_process"`) follow the default export.
  syncBuiltinESMExports();
}
