/**
 * Figure 5: runs spread over worker processes (Postgres, pg-boss). The emulator (own process) adds
 * a latency L to every answer; W `skillsync worker` processes with C calls in flight each should
 * then reach W·C / L calls per second while the machine has CPU to spare. Timed from the first
 * call reserved to the last call settled, from the ledger (the coordinator's polling is not the
 * workers' throughput). With L = 0 the run is CPU-bound: calls/s as workers are added, and where
 * the CPU went — the workers, Postgres, the emulator, the coordinating process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openWorkQueue } from "../connectors/queue/work-queue.js";
import { DEMO_KEY } from "../emulator/index.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { runOnWorkers } from "../engine/distribute/on-workers.js";
import { type EmulatorProcess, startEmulatorProcess } from "./emulator-process.js";
import { benchKeywords, type Workspace, workspace } from "./workload.js";

export interface ScalingFigure {
  latencyMs: number;
  workers: number;
  /** Calls in flight per worker. */
  concurrency: number;
  calls: number;
  callsPerSecond: number;
  /** W·C / L; null when L = 0 (CPU-bound: no latency reference). */
  idealCallsPerSecond: number | null;
  ratio: number | null;
  /** CPU time spent during the timed run, ms, by whom. */
  cpuMs: { workers: number; postgres: number; emulator: number; coordinator: number };
  /** First call reserved to last call settled (the median run's). */
  wallMs: number;
  /** Each run's calls/s. */
  runRates: number[];
  /** The whole run as the coordinator saw it (planning and following included): what the CPU times are over. */
  runMs: number;
}

const CLI = fileURLToPath(new URL("../cli/run.ts", import.meta.url));
const TICK_MS = 1000 / 100; // /proc times are in clock ticks of 1/100 s on Linux

/** CPU time (user + system) of a process so far, ms; 0 once it is gone. */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU time of every Postgres server process of this machine, ms. */
function postgresCpuMs(): number {
  let total = 0;
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, "utf8").trim() === "postgres") total += procCpuMs(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export function startWorkerProcess(
  db: string,
  apiUrl: string,
  concurrency: number,
  extra: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "worker", "--db", db, "--concurrency", String(concurrency), ...extra],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, SKILL_API_BASE_URL: apiUrl, SKILL_API_KEY: DEMO_KEY },
    },
  );
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d) => {
      err += String(d);
      if (err.includes("taking batches")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}

/** One timed run of `calls` calls over the workers; its rate from the ledger's first and last call. */
async function timedRun(
  ws: Workspace,
  emu: EmulatorProcess,
  workers: ChildProcess[],
  calls: number,
  concurrency: number,
): Promise<{ callsPerSecond: number; wallMs: number; runMs: number; cpuMs: ScalingFigure["cpuMs"] }> {
  const { warehouse: w, client } = ws;
  const queue = await openWorkQueue(w.target);
  try {
    const before = {
      workers: workers.reduce((n, c) => n + procCpuMs(c.pid!), 0),
      postgres: postgresCpuMs(),
      emulator: await emu.cpuMs(),
      coordinator: process.cpuUsage(),
    };
    const t0 = performance.now();
    const s = await runOnWorkers({
      warehouse: w,
      client,
      pipelines: [loadPipeline("marketplace-search")],
      params: { keyword: benchKeywords(calls) },
      concurrency,
      workers: { queue, batchSize: concurrency },
    });
    const runMs = performance.now() - t0;
    const coordinator = process.cpuUsage(before.coordinator);
    const cpuMs = {
      workers: workers.reduce((n, c) => n + procCpuMs(c.pid!), 0) - before.workers,
      postgres: postgresCpuMs() - before.postgres,
      emulator: (await emu.cpuMs()) - before.emulator,
      coordinator: (coordinator.user + coordinator.system) / 1000,
    };
    if (s.status !== "succeeded" || s.counters.callsDone !== calls)
      throw new Error(`scaling run ended ${s.status} after ${s.counters.callsDone}/${calls} calls`);
    const span = await w.db
      .selectFrom("skillsync_calls")
      .select((eb) => [eb.fn.min("started_at").as("first"), eb.fn.max("finished_at").as("last")])
      .where("run_id", "=", s.runId)
      .executeTakeFirstOrThrow();
    const wallMs = Date.parse(String(span.last)) - Date.parse(String(span.first));
    return { callsPerSecond: calls / (wallMs / 1000), wallMs, runMs, cpuMs };
  } finally {
    await queue.close();
  }
}

/**
 * @example await scaling({ pgUrl, latencies: [200, 0], workers: [1, 2, 4], concurrency: 8, rounds: 20, cpuBoundCalls: 2000 });
 */
export async function scaling(o: {
  pgUrl: string;
  latencies: number[];
  workers: number[];
  concurrency: number;
  /** With L > 0, each worker's C calls are sent this many times over. */
  rounds: number;
  cpuBoundCalls: number;
  /** Timed runs per point (the median is the figure). */
  runs: number;
  log: (line: string) => void;
}): Promise<ScalingFigure[]> {
  const out: ScalingFigure[] = [];
  for (const latencyMs of o.latencies) {
    const emu = await startEmulatorProcess({ latencyMs });
    try {
      for (const W of o.workers) {
        const ws = await workspace(emu.url, o.pgUrl);
        const db = ws.url;
        const workers: ChildProcess[] = [];
        try {
          const c = o.concurrency;
          const calls = latencyMs > 0 ? W * c * o.rounds : o.cpuBoundCalls;
          o.log(`   L = ${latencyMs} ms, W = ${W} × C = ${c}: ${calls} calls`);
          const first = await startWorkerProcess(db, emu.url, c); // installs the queue's schema alone
          workers.push(
            first,
            ...(await Promise.all(Array.from({ length: W - 1 }, () => startWorkerProcess(db, emu.url, c)))),
          );
          await timedRun(ws, emu, workers, W * c * 2, c); // tables, JIT, connections
          const timed = [];
          for (let i = 0; i < o.runs; i++) timed.push(await timedRun(ws, emu, workers, calls, c));
          const r = [...timed].sort((a, b) => a.callsPerSecond - b.callsPerSecond)[
            Math.floor(timed.length / 2)
          ]!;
          const ideal = latencyMs > 0 ? (W * c) / (latencyMs / 1000) : null;
          out.push({
            latencyMs,
            workers: W,
            concurrency: c,
            calls,
            callsPerSecond: r.callsPerSecond,
            idealCallsPerSecond: ideal,
            ratio: ideal === null ? null : r.callsPerSecond / ideal,
            cpuMs: r.cpuMs,
            wallMs: r.wallMs,
            runMs: r.runMs,
            runRates: timed.map((t) => t.callsPerSecond),
          });
        } finally {
          for (const p of workers) p.kill("SIGTERM");
          await Promise.all(
            workers.map((p) => (p.exitCode === null ? new Promise((r) => p.once("exit", r)) : undefined)),
          );
          await ws.close();
        }
      }
    } finally {
      await emu.stop();
    }
  }
  return out;
}
