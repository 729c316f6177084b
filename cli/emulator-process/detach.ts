import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { type EmulatorRecord, emulatorLogPath, ensureRecordFolder, findEmulatorRecord } from "./record.js";

/** How long a detached emulator may take to listen: starting Node on a busy machine takes seconds. */
const START_DEADLINE_MS = 60_000;

/**
 * Starts this same `skillsync emulator` command again without `--detach`, as a process of its own
 * (its own session: the terminal's Ctrl-C and hang-up do not reach it), and resolves once it
 * listens: it records itself (record.ts), which is the sign. Its output goes to a log file. When
 * it ends before, the error it printed becomes this command's, with its exit code.
 */
export async function detachEmulator(): Promise<{ record: EmulatorRecord; log: string }> {
  const starting = join(ensureRecordFolder(), `emulator-starting-${process.pid}.log`);
  const out = openSync(starting, "w", 0o600);
  const args = process.argv.slice(2).filter((a) => a !== "--detach");
  // process.argv[1] is the CLI's entry (bin, build or source); execArgv keeps a loader such as tsx.
  const entry = [...process.execArgv, process.argv[1] ?? "", ...args];
  const child = spawn(process.execPath, entry, { detached: true, stdio: ["ignore", out, out] });
  closeSync(out);
  let exit: number | null | undefined;
  child.once("exit", (code) => {
    exit = code;
  });
  // Node could not start it (spawn's own error): reported like an exit.
  child.once("error", () => {
    exit ??= null;
  });
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const record = child.pid === undefined ? undefined : findEmulatorRecord(child.pid);
    if (record) {
      child.unref();
      const log = emulatorLogPath(record.port);
      renameSync(starting, log);
      return { record, log };
    }
    if (exit !== undefined) throw notStarted(starting, exit);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw notStarted(starting, undefined);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The error the emulator printed (without its `skillsync: ` prefix, which printError adds again). */
function notStarted(log: string, exit: number | null | undefined): SkillsyncError {
  const printed = readFileSync(log, "utf8")
    .replace(/^skillsync: /gm, "")
    .trim();
  rmSync(log, { force: true });
  const known = Object.values(ExitCode) as number[];
  const code = typeof exit === "number" && known.includes(exit) ? (exit as ExitCode) : ExitCode.failure;
  const message =
    exit === undefined
      ? `the emulator did not listen within ${START_DEADLINE_MS / 1000} s and was stopped${printed ? `; it printed:\n${printed}` : ""}`
      : printed || `the emulator ended before it listened (exit ${exit ?? "by a signal"})`;
  return new SkillsyncError("EMULATOR_NOT_STARTED", message, code);
}
