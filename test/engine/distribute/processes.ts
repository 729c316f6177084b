import { type ChildProcess, spawn } from "node:child_process";
import { onTestFailed } from "vitest";
import { afterTest } from "../../helpers/after-test.js";
import { DEMO_KEY } from "../../helpers/emulator.js";
import { nodeEntry } from "../../helpers/node-entry.js";

export interface CliProcess {
  child: ChildProcess;
  /** Everything it wrote to stderr and stdout so far. */
  output(): string;
  /** Resolves once its output contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `skillsync <args>` as its own process (the CLI from source), talking to the emulator at `apiUrl`. */
export function cliProcess(args: string[], apiUrl: string, env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [...nodeEntry("cli/run.ts"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, SKILL_API_BASE_URL: apiUrl, SKILL_API_KEY: DEMO_KEY, DATABASE_URL: "", ...env },
  });
  afterTest(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  // A failed test shows what each process said.
  onTestFailed(() => {
    console.error(`--- skillsync ${args.slice(0, 3).join(" ")} (pid ${child.pid}):\n${out.slice(-4000)}`);
  });
  const listeners = new Set<() => void>();
  const take = (d: unknown) => {
    out += String(d);
    for (const l of listeners) l();
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => out,
    exited,
    waitFor(text, timeoutMs = 60_000) {
      const found = () => (typeof text === "string" ? out.includes(text) : text.test(out));
      return new Promise<void>((resolve, reject) => {
        if (found()) return resolve();
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no "${String(text)}" within ${timeoutMs} ms; output:\n${out.slice(-3000)}`));
        }, timeoutMs);
        const check = () => {
          if (!found()) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        void exited.then(() => {
          if (!found()) check();
        });
      });
    },
  };
}

/** A `skillsync worker` process, once it takes batches. */
export async function workerProcess(db: string, apiUrl: string, extra: string[] = []): Promise<CliProcess> {
  const p = cliProcess(["worker", "--db", db, ...extra], apiUrl);
  await p.waitFor("taking batches");
  return p;
}
