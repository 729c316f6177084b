import type { Command } from "commander";
import { type RunPipelines, runPipelines } from "../engine/run/runner.js";

/** `--allow-unpriced`, on every command that runs pipelines under a ceiling. */
export function withUnpricedOption(cmd: Command): Command {
  return cmd.option(
    "--allow-unpriced",
    "run even when a ceiling is over an operation priced 0 or unpriced, which it cannot bind (a warning says so)",
  );
}

/** The runner of a long-running command (serve, schedule), with `--allow-unpriced` reaching each run. */
export function allowingUnpriced(
  run: RunPipelines | undefined,
  flags: { allowUnpriced?: boolean | undefined },
): RunPipelines | undefined {
  if (!flags.allowUnpriced) return run;
  const base = run ?? runPipelines;
  return (o) => base({ ...o, allowUnpriced: true });
}
