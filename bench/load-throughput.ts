/**
 * Figure 1: rows/s of skillsync's real load path (`loadAnswers`, as the runner calls it: compiled
 * mapping → typed rows → bulk writer, child tables, rejects and a load marker per response, in one
 * transaction per group of `group` responses) against the raw driver doing the same upserts in the
 * same transactions (raw.ts). Each run loads the responses twice into fresh tables: once as
 * inserts, once more as updates of the same keys (merge replaces children).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openWarehouse, type Warehouse } from "../connectors/warehouse/open.js";
import { dropReaderRole } from "../connectors/warehouse/postgres/reader.js";
import { ensureTable } from "../connectors/warehouse/tables.js";
import { type LoadedPipeline, loadPipeline } from "../engine/define/pipeline-file.js";
import type { PlannedCall } from "../engine/extract/planned-calls.js";
import { loadAnswers } from "../engine/load/load-response.js";
import { compileMapping } from "../engine/normalize/mapping.js";
import { migrateToLatest } from "../store/migrate.js";
import type { BenchResponse } from "./datasets.js";
import { type RawBatch, rawPostgresLoader, rawSqliteLoader } from "./raw.js";
import { median, seconds } from "./stats.js";

export interface LoadFigure {
  database: "sqlite" | "postgres";
  shape: string;
  /** Rows written per run (both passes, parents and children). */
  rows: number;
  responses: number;
  /** Responses per transaction (the runner groups the answers that wait; 1 when they come slowly). */
  group: number;
  skillsyncRowsPerSecond: number;
  rawRowsPerSecond: number;
  ratio: number;
  /** Each run's own ratio (skillsync's run over the raw run next to it): how far the machine moved. */
  runRatios: number[];
  runs: number;
}

interface Scratch {
  url: string;
  /** Raw connection details. */
  path?: string;
  schema?: string;
  drop(): Promise<void>;
}

export function scratch(pgUrl: string | undefined): Scratch {
  if (!pgUrl) {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-bench-"));
    const path = join(dir, "bench.db");
    return { url: path, path, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${randomBytes(5).toString("hex")}`;
  return {
    url: `${pgUrl}${pgUrl.includes("?") ? "&" : "?"}schema=${schema}`,
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop schema if exists "${schema}" cascade`);
      await dropReaderRole(c, schema);
      await c.end();
    },
  };
}

const OBSERVED_AT = "2025-06-01T12:00:00.000Z";

function plannedCall(p: LoadedPipeline, r: BenchResponse, i: number): PlannedCall {
  return {
    skill: p.skill,
    body: r.request,
    hash: `bench-${i}`,
    credits: 0,
    input: undefined,
    items: 1,
    pageIndex: 0,
    fetched: 0,
  };
}

async function prepared(s: Scratch, p: LoadedPipeline): Promise<Warehouse> {
  const w = await openWarehouse(s.url);
  await migrateToLatest(w);
  const m = compileMapping(p.records);
  for (const t of [m.table, ...m.children]) await ensureTable(w, t);
  return w;
}

/** Consecutive slices of `size` items. */
function groups<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** One run of skillsync's path; returns [rows, seconds]. */
async function skillsyncRun(
  pgUrl: string | undefined,
  p: LoadedPipeline,
  responses: BenchResponse[],
  group: number,
) {
  const s = scratch(pgUrl);
  const w = await prepared(s, p);
  let rows = 0;
  try {
    const answers = responses.map((r, i) => ({
      call: plannedCall(p, r, i),
      data: r.data,
      receivedAt: OBSERVED_AT,
      ledger: { kind: "none" as const },
    }));
    const time = await seconds(async () => {
      // Compiled once per run, as the runner does.
      const c = { pipeline: p, params: {}, mapping: compileMapping(p.records) };
      for (let pass = 0; pass < 2; pass++) {
        for (const g of groups(answers, group)) rows += (await loadAnswers(w, c, "bench-run", g)).rows;
      }
    });
    return [rows, time] as const;
  } finally {
    await w.close();
    await s.drop();
  }
}

/** The raw driver's batches: the same typed rows, made before timing. */
export function rawBatches(p: LoadedPipeline, responses: BenchResponse[]): RawBatch[] {
  const m = compileMapping(p.records);
  return responses.map((r) => {
    const n = m.normalise(r.data, {
      input: undefined,
      request: r.request,
      params: {},
      observedAt: OBSERVED_AT,
      runId: "bench-run",
      skill: p.skill,
    });
    return {
      tables: [m.table, ...m.children].map((def, i) => ({
        def,
        rows: n.rows.get(def.name) ?? [],
        deleteByParentKey: i === 0 ? undefined : m.table.key,
      })),
    };
  });
}

async function rawRun(pgUrl: string | undefined, p: LoadedPipeline, batches: RawBatch[], group: number) {
  const s = scratch(pgUrl);
  await (await prepared(s, p)).close();
  const loader = s.path
    ? rawSqliteLoader(s.path)
    : await rawPostgresLoader(pgUrl!.replace(/[?&]schema=[^&]*/, ""), s.schema!);
  let rows = 0;
  try {
    const time = await seconds(async () => {
      for (let pass = 0; pass < 2; pass++) {
        for (const g of groups(batches, group)) {
          await loader.load(g);
          for (const t of g.flatMap((b) => b.tables)) rows += t.rows.length;
        }
      }
    });
    return [rows, time] as const;
  } finally {
    await loader.close();
    await s.drop();
  }
}

/**
 * Loads `responses` with skillsync and with the raw driver, alternating, `runs` times each.
 *
 * @example await loadFigure(undefined, "marketplace-search", marketplacePages(200), 5)
 */
export async function loadFigure(
  pgUrl: string | undefined,
  pipelineName: string,
  shape: string,
  responses: BenchResponse[],
  runs: number,
  group: number,
): Promise<LoadFigure> {
  const p = loadPipeline(pipelineName);
  const batches = rawBatches(p, responses);
  const ours: number[] = [];
  const raw: number[] = [];
  const pairs: number[] = [];
  let rows = 0;
  // One untimed round first, of a quarter of the responses (JIT, page cache, Postgres catalog
  // caches): with 5 responses the first timed run was still ~0.15 lower than the rest for skillsync.
  const warm = Math.max(5, Math.ceil(responses.length / 4));
  await skillsyncRun(pgUrl, p, responses.slice(0, warm), group);
  await rawRun(pgUrl, p, batches.slice(0, warm), group);
  for (let i = 0; i < runs; i++) {
    const [n, t] = await skillsyncRun(pgUrl, p, responses, group);
    const [m, u] = await rawRun(pgUrl, p, batches, group);
    if (n !== m) throw new Error(`skillsync wrote ${n} rows, the raw driver ${m}: not the same work`);
    rows = n;
    ours.push(n / t);
    raw.push(m / u);
    pairs.push(n / t / (m / u));
  }
  const skillsyncRowsPerSecond = median(ours);
  const rawRowsPerSecond = median(raw);
  return {
    database: pgUrl ? "postgres" : "sqlite",
    shape,
    rows,
    responses: responses.length,
    group,
    skillsyncRowsPerSecond,
    rawRowsPerSecond,
    ratio: skillsyncRowsPerSecond / rawRowsPerSecond,
    runRatios: pairs,
    runs,
  };
}
