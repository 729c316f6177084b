import { hostname } from "node:os";
import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type LoadedPipeline, loadPipeline } from "../../engine/define/pipeline-file.js";
import type { PlannedCall } from "../../engine/extract/planned-calls.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";

/** Writes a pipeline file (and any extra files) into a fresh folder and loads it. */
export function pipelineFrom(yaml: string, files: Record<string, string> = {}): LoadedPipeline {
  return loadPipeline(writePipelineFile(yaml, files, "pipeline.yaml"));
}

/** A first-page call of `skill` known by its request hash (loads in tests need no more of it). */
export const firstCall = (skill: string, hash: string, body: Record<string, unknown> = {}): PlannedCall => ({
  skill,
  body,
  hash,
  credits: 0,
  input: undefined,
  items: 1,
  pageIndex: 0,
  fetched: 0,
});

export const builtin = (...names: string[]) => names.map((n) => loadPipeline(n));

/** A running run "other" of `pipeline`, owned by `pid` on this host (single-flight tests' other run). */
export async function insertOtherRun(w: Warehouse, pipeline: string, pid: number): Promise<void> {
  const now = new Date().toISOString();
  await w.db
    .insertInto("skillsync_runs")
    .values({
      id: "other",
      run_key: "other",
      pipelines: JSON.stringify([pipeline]),
      trigger: "manual",
      status: "running",
      pid,
      host: hostname(),
      started_at: now,
      heartbeat_at: now,
    })
    .execute();
}

export async function count(w: Warehouse, table: string, where = "1=1"): Promise<number> {
  const r = await sql.raw<{ n: number }>(`select count(*) as n from ${table} where ${where}`).execute(w.db);
  return Number(r.rows[0]?.n ?? 0);
}

export async function rows<T = Record<string, unknown>>(w: Warehouse, query: string): Promise<T[]> {
  return (await sql.raw<T>(query).execute(w.db)).rows;
}

/** A small marketplace pipeline with the given write mode and freshness. */
export const marketplaceYaml = (mode: string, freshness = "0", extra = "") => `name: mini-market
skill: marketplace-search
params:
  keyword: { repeatable: true, required: true }
input: { name: keyword, from: { param: keyword } }
request: { keyword: "{{keyword}}" }
freshness: ${freshness === "0" ? 0 : freshness}
records:
  path: products
  table: mini_products
  key: [keyword, item_index]
  mode: ${mode}
  columns:
    keyword: { from: $request.keyword }
    item_index: { from: $index, type: integer }
    asin: text
    price: { from: price, type: number, transform: money }
${extra}`;

/**
 * A run's `onStart`, and `meanwhile(fn)`: `fn` 300 ms after that run started, while it waits for
 * another run's call.
 */
export function whileRunWaits(): {
  onStart: () => void;
  meanwhile: (fn: () => Promise<void>) => Promise<void>;
} {
  let started: () => void = () => {};
  const running = new Promise<void>((r) => {
    started = r;
  });
  return {
    onStart: () => started(),
    meanwhile: (fn) => running.then(() => new Promise<void>((r) => setTimeout(r, 300))).then(fn),
  };
}

/** A ledger row's outcome. */
export const outcomeOf = async (w: Warehouse, id: number): Promise<string | undefined> =>
  (await rows<{ outcome: string }>(w, `select outcome from skillsync_calls where id = ${id}`))[0]?.outcome;
