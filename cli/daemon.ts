import { ExitCode } from "../core/errors.js";
import type { LogFields } from "../core/log.js";
import { cliLog } from "./log.js";

/**
 * A log line of a long-running process (scheduler, worker), in the invocation's `--log-format`:
 * on stderr, stamped, secrets redacted. Prefer passing an event name.
 */
export function logLine(line: string, fields: LogFields = { event: "log" }): void {
  cliLog()(line, fields);
}

// Resolves on the first SIGINT/SIGTERM; a second one quits at once.
export function firstSignal(): { signal: Promise<string>; dispose: () => void } {
  let resolve: (s: string) => void = () => {};
  const signal = new Promise<string>((r) => {
    resolve = r;
  });
  let seen = false;
  const on = (name: string) => {
    if (seen) process.exit(ExitCode.failure);
    seen = true;
    resolve(name);
  };
  const onInt = () => on("SIGINT");
  const onTerm = () => on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    signal,
    dispose: () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
