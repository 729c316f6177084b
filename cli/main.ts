import { Command, CommanderError } from "commander";
import { ExitCode } from "../core/errors.js";
import { registerCommands } from "./commands/index.js";
import { printError } from "./output.js";
import { packageVersion } from "./version.js";

/** Runs the `skillsync` command line; resolves to the exit code instead of exiting, so tests can call it. */
export async function main(argv: string[]): Promise<number> {
  const program = new Command("skillsync")
    .description("Turn the Skill API into SQLite or Postgres tables")
    .version(packageVersion(), "--version", "print the version")
    .option("--verbose", "print stack traces with errors")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  registerCommands(program);
  try {
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    printError(err, program.opts<{ verbose?: boolean }>().verbose === true);
    return exitCodeOf(err);
  }
}

export function exitCodeOf(err: unknown): number {
  if (err && typeof err === "object" && "exitCode" in err && typeof err.exitCode === "number")
    return err.exitCode;
  return ExitCode.failure;
}
