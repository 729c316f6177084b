/**
 * Figure 3: CPU time per call in skillsync's process (client, validation, ledger, credits, stored
 * response, normalising, loading) against the emulator with no added latency, in its own process
 * so its CPU is not counted. In-process SQLite's work counts (it runs in this process); Postgres's
 * server does not. Reference, same run: the bare HTTP call (undici, same requests, same
 * concurrency, body read and JSON-parsed) with nothing else. Beside it, the floor of any loader:
 * the bare call plus the raw driver writing the same pages' rows into the same table.
 */
import { Pool } from "undici";
import { marketplaceSearch } from "../emulator/generate/marketplace.js";
import { DEMO_KEY } from "../emulator/index.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { startEmulatorProcess } from "./emulator-process.js";
import { rawBatches } from "./load-throughput.js";
import { rawPostgresLoader, rawSqliteLoader } from "./raw.js";
import { median } from "./stats.js";
import { benchKeywords, marketplaceRun, type Workspace, workspace } from "./workload.js";

export interface OverheadFigure {
  database: "sqlite" | "postgres";
  calls: number;
  concurrency: number;
  cpuMsPerCall: number;
  /** The bare HTTP call's CPU per call. */
  referenceCpuMsPerCall: number;
  ratio: number;
  /** Each run's own ratio (skillsync's run over the bare run after it). */
  runRatios: number[];
  emulatorCpuMsPerCall: number;
  /**
   * The raw driver's CPU per call writing the same pages' rows (typed beforehand, not timed) into
   * the same table, 16 pages per transaction (the runner's largest group). Absent in results
   * saved before it was measured.
   */
  rawWriteCpuMsPerCall?: number;
  /** Bare HTTP call + raw write, per run's median: what any loader of these pages costs at least. */
  floorCpuMsPerCall?: number;
  runs: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/**
 * The bare HTTP call, `n` times at `concurrency`: undici, the same requests, body JSON-parsed,
 * nothing else. Returns this process's CPU per call and the calls per second.
 */
export async function bareCalls(
  url: string,
  n: number,
  concurrency: number,
): Promise<{ cpuMsPerCall: number; callsPerSecond: number }> {
  const pool = new Pool(url, { connections: concurrency });
  const headers = { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" };
  let next = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await pool.request({
        method: "POST",
        path: "/api/skill-api/v1/skills/marketplace-search/run",
        headers,
        body: JSON.stringify({ keyword: `bare ${process.pid} ${i}`, page: 1 }),
      });
      JSON.parse(await res.body.text());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const used = cpuMs(before);
  await pool.close();
  return { cpuMsPerCall: used / n, callsPerSecond: n / seconds };
}

export async function overhead(o: {
  calls: number;
  concurrency: number;
  runs: number;
  pgUrl?: string | undefined;
}): Promise<OverheadFigure> {
  const emu = await startEmulatorProcess({});
  const ws = await workspace(emu.url, o.pgUrl);
  try {
    await marketplaceRun(ws, 200, o.concurrency); // warm: JIT, tables, connections
    await bareCalls(emu.url, 200, o.concurrency);
    await rawWriteCpu(ws, benchKeywords(200));
    const ours: number[] = [];
    const bare: number[] = [];
    const raw: number[] = [];
    const emulator: number[] = [];
    for (let r = 0; r < o.runs; r++) {
      const keywords = benchKeywords(o.calls);
      const e0 = await emu.cpuMs();
      const before = process.cpuUsage();
      const s = await marketplaceRun(ws, keywords, o.concurrency);
      ours.push(cpuMs(before) / o.calls);
      emulator.push(((await emu.cpuMs()) - e0) / o.calls);
      if (s.counters.callsDone !== o.calls) throw new Error(`overhead run ended ${s.status}`);
      bare.push((await bareCalls(emu.url, o.calls, o.concurrency)).cpuMsPerCall);
      raw.push(await rawWriteCpu(ws, keywords));
    }
    const cpuMsPerCall = median(ours);
    const referenceCpuMsPerCall = median(bare);
    const rawWriteCpuMsPerCall = median(raw);
    return {
      database: o.pgUrl ? "postgres" : "sqlite",
      calls: o.calls,
      concurrency: o.concurrency,
      cpuMsPerCall,
      referenceCpuMsPerCall,
      ratio: cpuMsPerCall / referenceCpuMsPerCall,
      runRatios: ours.map((x, i) => x / bare[i]!),
      emulatorCpuMsPerCall: median(emulator),
      rawWriteCpuMsPerCall,
      floorCpuMsPerCall: median(bare.map((b, i) => b + raw[i]!)),
      runs: o.runs,
    };
  } finally {
    await ws.close();
    await emu.stop();
  }
}

/**
 * This process's CPU per page for the raw driver writing the rows of the pages the emulator gave
 * for `keywords` (the same generator, rows typed beforehand) into the workspace's own table,
 * where skillsync's run has just written them: keywords prefixed "raw " so that, as in that run,
 * every row is a new key. 16 pages per transaction, the runner's largest group.
 */
async function rawWriteCpu(ws: Workspace, keywords: string[]): Promise<number> {
  const pipeline = loadPipeline("marketplace-search");
  const pages = keywords.map((keyword) => ({
    request: { keyword: `raw ${keyword}`, page: 1 },
    data: marketplaceSearch({ keyword, page: 1 }),
  }));
  const batches = rawBatches(pipeline, pages);
  const target = ws.warehouse.target;
  const loader =
    target.kind === "sqlite"
      ? rawSqliteLoader(target.path)
      : await rawPostgresLoader(target.connectionString, target.schema ?? "public");
  try {
    const before = process.cpuUsage();
    for (let i = 0; i < batches.length; i += 16) await loader.load(batches.slice(i, i + 16));
    return cpuMs(before) / keywords.length;
  } finally {
    await loader.close();
  }
}
