import { spawn } from "node:child_process";
import { DEMO_KEY } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";

export interface ChildSpec {
  pipelines: string[];
  params: Record<string, string[]>;
  concurrency: number;
  /** When set (epoch ms), the child waits until then before opening the warehouse: processes started together begin at once. */
  startAt?: number;
}

/**
 * Runs pipelines in a separate process (as another `skillsync run` would). With `killAfterMs`,
 * SIGKILLs it that long after it started working; with `killWhen`, as soon as that holds (looked
 * at every 5 ms once it started: the emulator's ledger reached a count, say).
 */
export function runChild(
  db: string,
  url: string,
  opts: { killAfterMs?: number; killWhen?: () => boolean; spec?: ChildSpec } = {},
): Promise<{ outcome: "killed" | "finished"; output: string }> {
  return new Promise((resolve, reject) => {
    const args = [
      ...nodeEntry("test/engine/run-child.ts"),
      db,
      url,
      DEMO_KEY,
      ...(opts.spec ? [JSON.stringify(opts.spec)] : []),
    ];
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stderr.on("data", (d) => {
      err += String(d);
    });
    p.stdout.on("data", (d) => {
      out += String(d);
      if (opts.killAfterMs !== undefined && String(d).includes("started"))
        setTimeout(() => p.kill("SIGKILL"), opts.killAfterMs);
      const when = opts.killWhen;
      if (when && String(d).includes("started")) {
        const watch = setInterval(() => {
          if (!when()) return;
          clearInterval(watch);
          p.kill("SIGKILL");
        }, 5);
        p.on("exit", () => clearInterval(watch));
      }
    });
    p.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve({ outcome: "killed", output: out });
      else if (code === 0) resolve({ outcome: "finished", output: out });
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}
