/**
 * `npm run bench`: skillsync's figures next to references measured in the same run on the same
 * machine. Every figure is the median of several runs. Progress goes to stderr, the table (or
 * JSON with --json) to stdout.
 *
 *   npm run bench -- [--json] [--pg URL] [--only load,saturation,overhead,memory,scaling,rate,export,watches]
 *                    [--runs 5] [--calls 20000] [--report-rows 1000000] [--patents 30000] [--latency 200]
 *                    [--concurrency 1,4,16,32] [--rounds 20] [--overhead-calls 2000]
 *                    [--market-pages 400] [--patent-batches 20] [--group 1,16]
 *                    [--workers 1,2,4] [--worker-concurrency 8] [--worker-rounds 50] [--cpu-bound-calls 2000]
 *                    [--rate-limit 20] [--rate-calls 600] [--rate-concurrency 8,32,64]
 *                    [--wide-concurrency 64] [--wide-latency 1000] [--export-rows 1000000]
 *                    [--watch-keys 10000] [--watches 100] [--watch-runs 5] [--watch-group 16]
 *   npm run bench -- --print result.json     (the table of a saved --json result)
 *
 * Postgres figures need a server: --pg URL, or SKILLSYNC_TEST_POSTGRES_URL / DATABASE_URL.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import pg from "pg";
import { keepHeapSmall } from "../cli/heap.js";
import { marketplacePages, patentBatches } from "./datasets.js";
import { type ExportFigure, exportFigure } from "./export.js";
import { type LoadFigure, loadFigure } from "./load-throughput.js";
import { compileForMemory, type MemoryFigure, memory } from "./memory.js";
import { type OverheadFigure, overhead } from "./overhead.js";
import { type RateLimitedFigure, rateLimited } from "./rate-limited.js";
import { type SaturationFigure, saturation } from "./saturation.js";
import { type ScalingFigure, scaling } from "./scaling.js";
import { grouped } from "./stats.js";
import { type BenchResult, table } from "./table.js";
import { type WatchFigure, watchFigure } from "./watches.js";

// The runner figures run in this process: set up as the CLI sets up its own.
keepHeapSmall();

const argv = process.argv.slice(2);
if (argv[0] === "--print") {
  // A saved --json result, as the table.
  console.log(table(JSON.parse(readFileSync(argv[1] ?? "/dev/stdin", "utf8")) as BenchResult));
  process.exit(0);
}
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
};
const num = (name: string, fallback: number) => {
  const v = Number(opt(name, String(fallback)));
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
};

const envPg = [process.env["SKILLSYNC_TEST_POSTGRES_URL"], process.env["DATABASE_URL"]].find((u) =>
  /^postgres(ql)?:\/\//.test(u ?? ""),
);
const pgUrl = opt("pg", envPg ?? "") || undefined;
const only = new Set(opt("only", "load,saturation,overhead,memory,scaling,rate,export,watches").split(","));
const runs = num("runs", 5);
const settings = {
  runs,
  calls: num("calls", 20_000),
  reportRows: num("report-rows", 1_000_000),
  patents: num("patents", 30_000),
  latencyMs: num("latency", 200),
  concurrency: opt("concurrency", "1,4,16,32").split(",").map(Number),
  rounds: num("rounds", 20),
  overheadCalls: num("overhead-calls", 2000),
  marketPages: num("market-pages", 400),
  patentBatches: num("patent-batches", 20),
  // Responses per transaction: 1 when answers come one at a time, 16 the runner's largest group.
  groups: opt("group", "1,16").split(",").map(Number),
  // Worker processes (Postgres only) and the calls in flight in each.
  workers: opt("workers", "1,2,4").split(",").map(Number),
  workerConcurrency: num("worker-concurrency", 8),
  // Long enough that idle workers' first poll of the queue (every 0.5 s) is not the figure.
  workerRounds: num("worker-rounds", 50),
  cpuBoundCalls: num("cpu-bound-calls", 2000),
  // Figure 2, wide: C calls in flight against L ms answers.
  wideConcurrency: num("wide-concurrency", 64),
  wideLatencyMs: num("wide-latency", 1000),
  // Figure 6: the emulator's limit per key, the calls of each run, the concurrencies tried.
  rateLimit: num("rate-limit", 20),
  rateCalls: num("rate-calls", 600),
  rateConcurrency: opt("rate-concurrency", "8,32,64").split(",").map(Number),
  // Figure 7: the rows of the SQLite table exported to Parquet.
  exportRows: num("export-rows", 1_000_000),
  // Figure 8: a load changing this many keys of a history table, with this many watches on it.
  watchKeys: num("watch-keys", 10_000),
  watches: num("watches", 100),
  watchRuns: num("watch-runs", 5),
  watchGroup: num("watch-group", 16),
};
const log = (s: string) => process.stderr.write(`${s}\n`);

async function postgresVersion(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ v: string }>("select current_setting('server_version') as v");
    return `PostgreSQL ${r.rows[0]?.v ?? "?"}`;
  } finally {
    await c.end();
  }
}

const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "?",
  node: process.version,
  postgres: pgUrl ? await postgresVersion(pgUrl) : "not measured (no --pg URL)",
  date: new Date().toISOString(),
};
const databases = pgUrl ? [undefined, pgUrl] : [undefined];
if (!pgUrl)
  log("No Postgres URL (--pg, SKILLSYNC_TEST_POSTGRES_URL or DATABASE_URL): Postgres figures are skipped.");

const load: LoadFigure[] = [];
const sat: SaturationFigure[] = [];
const over: OverheadFigure[] = [];
const mem: MemoryFigure[] = [];
const scale: ScalingFigure[] = [];
const rate: RateLimitedFigure[] = [];
const exported: ExportFigure[] = [];
const watched: WatchFigure[] = [];

if (only.has("load")) {
  log("1. load throughput: generating responses…");
  const shapes = [
    ["marketplace-search", "marketplace", marketplacePages(settings.marketPages)],
    ["patent-bibliography", "patent", patentBatches(settings.patentBatches)],
  ] as const;
  for (const db of databases) {
    for (const [pipeline, shape, responses] of shapes) {
      for (const group of settings.groups) {
        log(
          `   ${db ? "postgres" : "sqlite"} ${shape}, ${group} per transaction: ${runs} runs, skillsync and raw alternating`,
        );
        load.push(await loadFigure(db, pipeline, shape, [...responses], runs, group));
      }
    }
  }
}
if (only.has("saturation")) {
  log(`2. runner saturation: L = ${settings.latencyMs} ms, C = ${settings.concurrency.join(", ")}`);
  sat.push(
    ...(await saturation({
      latencyMs: settings.latencyMs,
      concurrencies: settings.concurrency,
      rounds: settings.rounds,
      runs: Math.min(runs, 3),
    })),
  );
  // Wide: more calls in flight than the HTTP pool once allowed (32), with slow answers.
  log(`   and C = ${settings.wideConcurrency} with L = ${settings.wideLatencyMs} ms`);
  sat.push(
    ...(await saturation({
      latencyMs: settings.wideLatencyMs,
      concurrencies: [settings.wideConcurrency],
      rounds: 10,
      runs: Math.min(runs, 3),
    })),
  );
}
if (only.has("overhead")) {
  for (const db of databases) {
    log(
      `3. per-call CPU: ${settings.overheadCalls} calls × ${Math.min(runs, 3)} runs, ${db ? "postgres" : "sqlite"}`,
    );
    over.push(
      await overhead({ calls: settings.overheadCalls, concurrency: 8, runs: Math.min(runs, 3), pgUrl: db }),
    );
  }
}
if (only.has("memory")) {
  log("4. memory: compiling to JavaScript (as the CLI runs)…");
  const script = await compileForMemory();
  log(`   report part of ${grouped(settings.reportRows)} rows (and ${grouped(settings.reportRows / 10)})`);
  mem.push(await memory(script, "report", settings.reportRows));
  log(`   run of ${grouped(settings.calls)} calls (and ${grouped(settings.calls / 10)})`);
  mem.push(await memory(script, "calls", settings.calls));
  log(
    `   bibliographies of ${grouped(settings.patents)} patents in batches of 100 (and ${grouped(settings.patents / 10)})`,
  );
  mem.push(await memory(script, "patents", settings.patents));
}

if (only.has("scaling") && pgUrl) {
  log(
    `5. workers: W = ${settings.workers.join(", ")} processes × C = ${settings.workerConcurrency}, L = ${settings.latencyMs} ms and 0`,
  );
  scale.push(
    ...(await scaling({
      pgUrl,
      latencies: [settings.latencyMs, 0],
      workers: settings.workers,
      concurrency: settings.workerConcurrency,
      rounds: settings.workerRounds,
      cpuBoundCalls: settings.cpuBoundCalls,
      runs: Math.min(runs, 3),
      log,
    })),
  );
}

if (only.has("rate")) {
  log(
    `6. under a rate limit of ${settings.rateLimit}/s: C = ${settings.rateConcurrency.join(", ")}, --rate, 3 workers`,
  );
  rate.push(
    ...(await rateLimited({
      limit: settings.rateLimit,
      latencyMs: settings.latencyMs,
      calls: settings.rateCalls,
      concurrencies: settings.rateConcurrency,
      workers: 3,
      pgUrl,
      log,
    })),
  );
}

if (only.has("export")) {
  log(
    `7. export: ${grouped(settings.exportRows)} SQLite rows to Parquet (and a tenth), compiled as the CLI runs…`,
  );
  const script = (await compileForMemory()).replace(/memory-child\.js$/, "export-child.js");
  exported.push(await exportFigure(script, settings.exportRows, log));
}

if (only.has("watches")) {
  for (const db of databases) {
    for (const mix of ["quiet", "lists", "every-key"] as const) {
      log(
        `8. watches: ${settings.watches} (${mix}) on a history table, a load changing ${grouped(settings.watchKeys)} keys, ${settings.watchGroup} per transaction, ${db ? "postgres" : "sqlite"}: ${settings.watchRuns} runs, without and with alternating`,
      );
      watched.push(
        await watchFigure(db, {
          keys: settings.watchKeys,
          watches: settings.watches,
          mix,
          group: settings.watchGroup,
          runs: settings.watchRuns,
        }),
      );
    }
  }
}

const result: BenchResult = {
  machine,
  settings,
  load,
  saturation: sat,
  overhead: over,
  memory: mem,
  scaling: scale,
  rateLimited: rate,
  export: exported,
  watches: watched,
};
console.log(flag("json") ? JSON.stringify(result, null, 2) : table(result));
