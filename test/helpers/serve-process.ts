import { spawn } from "node:child_process";
import { onTestFailed } from "vitest";
import { afterTest } from "./after-test.js";
import { nodeEntry } from "./node-entry.js";
import { until } from "./until.js";

export interface ServeProcess {
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
}

/**
 * `skillsync serve --port 0` (or `console`) as its own process, with no DATABASE_URL or SKILLSYNC_NOTIFY_URL of
 * the machine's; resolves once it listens. Killed after the test and waited for (through
 * `afterTest`, so it runs for every test file sharing this module); its output is printed when
 * the test fails.
 */
export async function serveProcess(
  args: string[],
  env: Record<string, string>,
  command: "serve" | "console" = "serve",
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...nodeEntry("cli/run.ts"), command, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATABASE_URL: "", SKILLSYNC_NOTIFY_URL: "", ...env },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  afterTest(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  onTestFailed(() => console.error(`--- serve output:\n${out.slice(-4000)}`));
  const url = await until(
    async () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
    30_000,
    "serve to listen",
  );
  return {
    url,
    output: () => out,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
