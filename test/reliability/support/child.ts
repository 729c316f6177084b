import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChildSpec } from "./child-spec.js";
import { API_KEY } from "./secrets.js";
import { keepOutput } from "./suite.js";

const script = fileURLToPath(new URL("./child-main.ts", import.meta.url));

export interface ChildResult {
  outcome: "killed" | "finished" | "failed";
  code: number | null;
  summary:
    | { status: string; resumed: boolean; stopReason?: string; credits: number; shared?: number }
    | undefined;
  /** When the child was sent SIGKILL (ms since the epoch), if it was. */
  killedAt: number | undefined;
  /** Milliseconds from "started" (warehouse open) to "run" (tables ready, run registered). */
  prepareMs: number;
  /** Milliseconds from "run" to the end. */
  callMs: number;
  stderr: string;
}

/**
 * Runs a spec in a child process (`node --import tsx`). With `kill` it is SIGKILLed `afterMs` after
 * it said "started" (warehouse open, tables about to be prepared) or "run" (run registered, calls
 * about to be made).
 */
export function runChild(
  spec: ChildSpec,
  opts: {
    kill?: { after: "started" | "run"; afterMs: number };
    /** child-main compiled into one file (test/helpers/bundle.ts), run without tsx: starts faster. */
    compiled?: string;
  } = {},
): Promise<ChildResult> {
  const args = opts.compiled ? [opts.compiled] : ["--import", "tsx", script];
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...args, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SKILL_API_KEY: API_KEY },
    });
    let out = "";
    let err = "";
    let startedAt = 0;
    let runAt = 0;
    let killedAt: number | undefined;
    const killLater = (ms: number) =>
      setTimeout(() => {
        killedAt = Date.now();
        p.kill("SIGKILL");
      }, ms);
    p.stderr.on("data", (d) => {
      err += String(d);
    });
    p.stdout.on("data", (d) => {
      out += String(d);
      if (!startedAt && out.includes("started\n")) {
        startedAt = performance.now();
        if (opts.kill?.after === "started") killLater(opts.kill.afterMs);
      }
      if (!runAt && out.includes("run\n")) {
        runAt = performance.now();
        if (opts.kill?.after === "run") killLater(opts.kill.afterMs);
      }
    });
    p.on("exit", (code, signal) => {
      keepOutput("child", `${out}${err}`);
      const last = out.trim().split("\n").at(-1) ?? "";
      let summary: ChildResult["summary"];
      try {
        summary = last.startsWith("{") ? JSON.parse(last) : undefined;
      } catch {
        summary = undefined;
      }
      resolve({
        outcome: signal === "SIGKILL" ? "killed" : code === 0 ? "finished" : "failed",
        code,
        summary,
        killedAt,
        prepareMs: startedAt && runAt ? runAt - startedAt : 0,
        callMs: runAt ? performance.now() - runAt : 0,
        stderr: err,
      });
    });
  });
}
