import { spawn } from "node:child_process";
import { afterTest } from "../helpers/after-test.js";
import { nodeEntry } from "../helpers/node-entry.js";

/** `skillsync …` as a real process (killed after the test): its output, exit and a wait for a line. */
export function runCli(args: string[]) {
  const child = spawn(process.execPath, [...nodeEntry("cli/run.ts"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  afterTest(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // A generous deadline: starting tsx on a busy 2-core machine has taken over 10 s.
  const waitFor = async (pattern: RegExp) => {
    const deadline = Date.now() + 50_000;
    while (!pattern.test(out) && child.exitCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    return out;
  };
  return { child, exited, waitFor, output: () => ({ out, err }) };
}
