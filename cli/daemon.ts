import { ExitCode } from "../core/errors.js";

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
