import type { Command } from "commander";

/** `--allow-unpriced`, on every command that runs pipelines under a ceiling. */
export function withUnpricedOption(cmd: Command): Command {
  return cmd.option(
    "--allow-unpriced",
    "run even when a ceiling is over an operation priced 0 or unpriced, which it cannot bind (a warning says so)",
  );
}
