import { Command, CommanderError } from "commander";
import { ExitCode, SkillsyncError } from "../core/errors.js";
import { registerCommands } from "./commands/index.js";
import { loadDotEnv } from "./dotenv.js";
import { cliLog, logFormat, logFormatOption, resetLogFormat, setLogFormat, setQuiet } from "./log.js";
import { printError } from "./output.js";
import { packageVersion } from "./version.js";

/**
 * Runs the `skillsync` command line; resolves to the exit code instead of exiting, so tests can
 * call it. `envFrom`: the folder whose `.env` fills unset variables (the process entry passes the
 * working folder; tests pass none, so a developer's `.env` does not change them).
 */
export async function main(argv: string[], o: { envFrom?: string } = {}): Promise<number> {
  const program = new Command("skillsync")
    .description("Turn the Skill API into SQLite or Postgres tables")
    .version(packageVersion(), "-V, --version", "print the version")
    .option("--verbose", "print stack traces with errors")
    .option("-q, --quiet", "print results and errors only: no progress, notes or info logs on stderr")
    .addOption(logFormatOption())
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  registerCommands(program);
  // Chosen before any command runs (the flag may follow the command: `serve --log-format json`).
  program.hook("preAction", (_program, command) => {
    const globals = command.optsWithGlobals();
    setLogFormat(globals.logFormat);
    setQuiet(globals.quiet === true);
  });
  try {
    resetLogFormat();
    if (o.envFrom !== undefined) loadDotEnv(o.envFrom);
    await program.parseAsync(argv, { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with code 0.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
    if (logFormat() === "json") logError(err, verbose);
    else printError(err, verbose);
    return exitCodeOf(err);
  }
}

/** The error that ends a command, as one JSON log object (`--log-format json`): stderr stays JSON only. */
function logError(err: unknown, verbose: boolean): void {
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof SkillsyncError ? err.code : undefined;
  const stack = verbose && err instanceof Error ? err.stack : undefined;
  cliLog()(`skillsync: ${message}`, {
    event: "command.failed",
    level: "error",
    code,
    exitCode: exitCodeOf(err),
    stack,
  });
}

function exitCodeOf(err: unknown): number {
  if (err && typeof err === "object" && "exitCode" in err && typeof err.exitCode === "number")
    return err.exitCode;
  return ExitCode.failure;
}
