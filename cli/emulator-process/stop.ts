import { createServer } from "node:net";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { pidState } from "../../core/pid-state.js";
import { emulatorAnswers } from "../port-in-use.js";
import { forgetEmulator, readEmulatorRecord, recordFolder } from "./record.js";

/** How long the emulator may take to close its sockets after SIGTERM (it closes hanging ones too). */
export const STOP_WAIT_SECONDS = 10;

/** `emulator stop` found no emulator to stop: exit 1, as `pkill` finding no process. */
class NoEmulatorError extends SkillsyncError {
  constructor(message: string) {
    super("EMULATOR_NOT_RUNNING", message, ExitCode.failure);
  }
}

/**
 * Stops the emulator a `skillsync emulator` process recorded on `port` with SIGTERM (it closes its
 * sockets and prints its totals to its own output), and resolves once the port is free; says what
 * it did. The pid alone is not trusted: the port must still answer as an emulator, or the pid may
 * be another program's by now.
 */
export async function stopEmulator(port: number, waitSeconds = STOP_WAIT_SECONDS): Promise<string> {
  const record = readEmulatorRecord(port);
  if (!record)
    throw new NoEmulatorError(
      `no emulator runs on port ${port}: no \`skillsync emulator\` recorded itself there (records: ${recordFolder()})`,
    );
  const { pid, url } = record;
  if (!isAlive(pid) || !(await emulatorAnswers(url))) {
    forgetEmulator(port, pid);
    throw new NoEmulatorError(
      `no emulator runs on port ${port} any more: the one recorded there (pid ${pid}, ${url}) is gone; its record is removed`,
    );
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + waitSeconds * 1000;
  while (!(await portFree(record.host, port))) {
    if (Date.now() > deadline)
      throw new SkillsyncError(
        "EMULATOR_STILL_RUNNING",
        `sent SIGTERM to the emulator at ${url} (pid ${pid}), but port ${port} is still taken after ${waitSeconds} s (--wait); end it with \`kill -9 ${pid}\``,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
  // The emulator removes its record as it ends; one killed meanwhile cannot.
  forgetEmulator(port, pid);
  return `stopped the emulator at ${url} (pid ${pid}); port ${port} is free`;
}

// Another user's process is there too: the port check then says whether it is an emulator.
const isAlive = (pid: number) => pidState(pid) !== "gone";

/** Whether a new emulator could listen there now: the test `skillsync emulator` itself will make. */
async function portFree(host: string, port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
