import { readJson } from "../connectors/warehouse/adapter.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { type LoadRow, loadsOfRun } from "./loads.js";
import { getRun } from "./runs.js";

/** One pipeline of a run, across all the run's parts, from the call ledger. */
interface PipelineDetail {
  pipeline: string;
  /** Ledger rows: every call attempt, whatever its outcome. */
  calls: number;
  paid: number;
  fromStore: number;
  fromAnotherRun: number;
  failed: number;
  /** Sent, answer lost: possibly billed (counted in credits). */
  ambiguous: number;
  /** In flight when a process died: possibly billed (counted in credits). */
  interrupted: number;
  credits: number;
  rows: number;
  rejects: number;
  failures: { code: string; message: string; count: number }[];
}

export interface RunDetail {
  run: Record<string, unknown>;
  warnings: string[];
  pipelines: PipelineDetail[];
  /** Each pipeline's part of the run as a load: what it inserted, and in history tables what changed. */
  loads: LoadRow[];
}

const OUTCOME_FIELD: Record<string, keyof PipelineDetail> = {
  succeeded: "paid",
  // Paid and stored, its load cut short by a crash: the resumed run loads it from the store.
  answered: "paid",
  cached: "fromStore",
  shared: "fromAnotherRun",
  failed: "failed",
  ambiguous: "ambiguous",
  interrupted: "interrupted",
};

function emptyDetail(pipeline: string): PipelineDetail {
  return {
    pipeline,
    calls: 0,
    paid: 0,
    fromStore: 0,
    fromAnotherRun: 0,
    failed: 0,
    ambiguous: 0,
    interrupted: 0,
    credits: 0,
    rows: 0,
    rejects: 0,
    failures: [],
  };
}

/**
 * What one run did, per pipeline, across all its parts (a resumed run keeps its id): the ledger's
 * calls by outcome, credits, loaded rows, rejects and the failures with their messages.
 * Undefined when there is no such run.
 */
export async function runDetail(w: Warehouse, id: string): Promise<RunDetail | undefined> {
  const run = await getRun(w, id);
  if (!run) return undefined;
  const byPipeline = new Map<string, PipelineDetail>();
  const detail: DetailOf = (p) => byPipeline.get(p) ?? byPipeline.set(p, emptyDetail(p)).get(p)!;
  for (const p of readJson<string[]>(run["pipelines"])) detail(p);
  await addOutcomes(w, id, detail);
  await addFailures(w, id, detail);
  await addPartLoads(w, id, detail);
  await addRejects(w, id, detail);
  return {
    run,
    warnings: readJson<string[] | null>(run["warnings"] ?? null) ?? [],
    pipelines: [...byPipeline.values()],
    loads: await loadsOfRun(w, id),
  };
}

/** A pipeline's detail, made empty the first time it is asked for. */
type DetailOf = (pipeline: string) => PipelineDetail;

/** Counts the run's ledger rows by outcome, with their credits and loaded rows. */
async function addOutcomes(w: Warehouse, id: string, detail: DetailOf): Promise<void> {
  const outcomes = await w.db
    .selectFrom("skillsync_calls")
    .select((eb) => [
      "pipeline",
      "outcome",
      eb.fn.countAll().as("n"),
      eb.fn.sum("credits").as("credits"),
      eb.fn.sum("loaded_rows").as("rows"),
    ])
    .where("run_id", "=", id)
    .groupBy(["pipeline", "outcome"])
    .execute();
  for (const o of outcomes) {
    const d = detail(String(o.pipeline));
    const n = Number(o.n);
    d.calls += n;
    d.credits += Number(o.credits ?? 0);
    d.rows += Number(o.rows ?? 0);
    const field = OUTCOME_FIELD[String(o.outcome)];
    if (field) (d[field] as number) += n;
  }
}

/** The run's failed and ambiguous calls, grouped by error code and message. */
async function addFailures(w: Warehouse, id: string, detail: DetailOf): Promise<void> {
  const failures = await w.db
    .selectFrom("skillsync_calls")
    .select((eb) => ["pipeline", "error_code", "error", eb.fn.countAll().as("n")])
    .where("run_id", "=", id)
    .where("outcome", "in", ["failed", "ambiguous"])
    .groupBy(["pipeline", "error_code", "error"])
    .orderBy("pipeline")
    .execute();
  for (const f of failures) {
    detail(String(f.pipeline)).failures.push({
      code: String(f.error_code ?? "FAILED"),
      message: String(f.error ?? ""),
      count: Number(f.n),
    });
  }
}

/** Rows loaded from report parts (and loads by versions before 005), marked in skillsync_part_loads instead of the ledger. */
async function addPartLoads(w: Warehouse, id: string, detail: DetailOf): Promise<void> {
  const marks = await w.db
    .selectFrom("skillsync_part_loads")
    .select((eb) => ["pipeline", eb.fn.sum("rows").as("rows")])
    .where("run_id", "=", id)
    .groupBy("pipeline")
    .execute();
  for (const m of marks) detail(String(m.pipeline)).rows += Number(m.rows ?? 0);
}

async function addRejects(w: Warehouse, id: string, detail: DetailOf): Promise<void> {
  const rejects = await w.db
    .selectFrom("skillsync_rejects")
    .select((eb) => ["pipeline", eb.fn.countAll().as("n")])
    .where("run_id", "=", id)
    .groupBy("pipeline")
    .execute();
  for (const r of rejects) detail(String(r.pipeline)).rejects = Number(r.n);
}
