/**
 * Figure 3: CPU time per call in skillsync's process (client, validation, ledger, credits, stored
 * response, normalising, loading) against the emulator with no added latency, in its own process
 * so its CPU is not counted. In-process SQLite's work counts (it runs in this process); Postgres's
 * server does not. Reference, same run: the bare HTTP call (undici, same requests, same
 * concurrency, body read and JSON-parsed) with nothing else. Beside it, the floor of any loader:
 * the bare call plus the raw driver writing the same pages' rows into the same table.
 * SQLite also gets issue 31's comparison: marginal CPU per call against a hand-written fetch +
 * better-sqlite3 loader (hand-loader.ts), each from a run of n calls less a run of n/4.
 */
import { Pool } from "undici";
import { marketplaceSearch } from "../emulator/generate/marketplace.js";
import { DEMO_KEY } from "../emulator/index.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { startEmulatorProcess } from "./emulator-process.js";
import { handLoad, handRowCount } from "./hand-loader.js";
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
  /**
   * The rest: SQLite only (the hand loader is better-sqlite3), absent for Postgres and in results
   * saved before. The hand-written loader's CPU per call over its run of `calls`, as `cpuMsPerCall`.
   */
  handCpuMsPerCall?: number;
  /** (CPU of a run of n calls − CPU of a run of n/4) / (3n/4): what one more call costs. */
  marginalCpuMsPerCall?: number;
  handMarginalCpuMsPerCall?: number;
  /** skillsync's marginal CPU per call over the hand loader's (issue 31: ≤ 1.1). */
  marginalRatio?: number;
  /** Each run's own marginal ratio. */
  runMarginalRatios?: number[];
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
  const target = ws.warehouse.target;
  const sqlite = target.kind === "sqlite" ? target.path : undefined;
  try {
    await marketplaceRun(ws, 200, o.concurrency); // warm: JIT, tables, connections
    await bareCalls(emu.url, 200, o.concurrency);
    if (sqlite) await handCpu(emu.url, sqlite, 200, o.concurrency);
    await rawWriteCpu(ws, benchKeywords(200));
    const ours: number[] = [];
    const bare: number[] = [];
    const raw: number[] = [];
    const emulator: number[] = [];
    const margins: Margins[] = [];
    for (let r = 0; r < o.runs; r++) {
      const keywords = benchKeywords(o.calls);
      const e0 = await emu.cpuMs();
      ours.push((await skillsyncCpu(ws, keywords, o.concurrency)) / o.calls);
      emulator.push(((await emu.cpuMs()) - e0) / o.calls);
      bare.push((await bareCalls(emu.url, o.calls, o.concurrency)).cpuMsPerCall);
      if (sqlite) margins.push(await marginal(ws, emu.url, sqlite, o.calls, o.concurrency));
      // The raw write last, as before the marginal runs came: skillsync's and the bare runs above
      // keep the neighbours they had.
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
      ...marginalFigures(margins),
      runs: o.runs,
    };
  } finally {
    await ws.close();
    await emu.stop();
  }
}

/** This process's CPU, ms, for skillsync's run of these keywords (or of `n` fresh ones). */
async function skillsyncCpu(ws: Workspace, keywords: string[] | number, c: number): Promise<number> {
  const before = process.cpuUsage();
  const s = await marketplaceRun(ws, keywords, c);
  const used = cpuMs(before);
  const n = typeof keywords === "number" ? keywords : keywords.length;
  if (s.counters.callsDone !== n) throw new Error(`overhead run ended ${s.status}`);
  return used;
}

/**
 * This process's CPU, ms, for the hand loader's run of `n` fresh keywords ("hand " before them,
 * so that, as in skillsync's runs, every row is a new key). Throws unless its table grew by the
 * rows it wrote, at least one per page: a reference that loaded nothing would flatter skillsync.
 */
async function handCpu(url: string, path: string, n: number, c: number): Promise<number> {
  const keywords = benchKeywords(n).map((k) => `hand ${k}`);
  const had = handRowCount(path);
  const before = process.cpuUsage();
  const written = await handLoad(url, path, keywords, c);
  const used = cpuMs(before);
  const added = handRowCount(path) - had;
  if (written < n || added !== written)
    throw new Error(`hand loader: ${n} pages gave ${written} rows, its table grew by ${added}`);
  return used;
}

/** One run's marginal CPU per call, ms, both sides, and the hand loader's CPU per call over its run. */
interface Margins {
  ours: number;
  hand: number;
  handPerCall: number;
}

/**
 * Marginal CPU per call of skillsync and of the hand loader: (CPU of n calls − CPU of n/4 calls)
 * / (3n/4), so what each pays once per run (opening the run, making tables, first connections,
 * preparing statements) drops out. That holds only if both runs of a side start alike: what a
 * run leaves the next (garbage, another connection's writes to the file) can move skillsync's
 * figure by tenths of a ms per call. So the four runs alternate, hand loader first: each of
 * skillsync's runs follows one of the hand loader's, and neither follows the raw write.
 */
async function marginal(ws: Workspace, url: string, path: string, n: number, c: number): Promise<Margins> {
  const quarter = Math.floor(n / 4);
  const handQuarter = await handCpu(url, path, quarter, c);
  const oursQuarter = await skillsyncCpu(ws, quarter, c);
  const handN = await handCpu(url, path, n, c);
  const oursN = await skillsyncCpu(ws, n, c);
  return {
    ours: (oursN - oursQuarter) / (n - quarter),
    hand: (handN - handQuarter) / (n - quarter),
    handPerCall: handN / n,
  };
}

type MarginalFields =
  | "handCpuMsPerCall"
  | "marginalCpuMsPerCall"
  | "handMarginalCpuMsPerCall"
  | "marginalRatio"
  | "runMarginalRatios";

/** The figure's marginal fields, medians over the runs; none without runs (Postgres). */
function marginalFigures(m: Margins[]): Pick<OverheadFigure, MarginalFields> {
  if (!m.length) return {};
  const marginalCpuMsPerCall = median(m.map((x) => x.ours));
  const handMarginalCpuMsPerCall = median(m.map((x) => x.hand));
  return {
    handCpuMsPerCall: median(m.map((x) => x.handPerCall)),
    marginalCpuMsPerCall,
    handMarginalCpuMsPerCall,
    marginalRatio: marginalCpuMsPerCall / handMarginalCpuMsPerCall,
    runMarginalRatios: m.map((x) => x.ours / x.hand),
  };
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
