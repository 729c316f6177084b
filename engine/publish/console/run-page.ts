import type { Kysely } from "kysely";
import { readJson } from "../../../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../../../connectors/warehouse/open.js";
import type { LoadRow } from "../../../store/loads.js";
import { type RunDetail, runDetail } from "../../../store/run-detail.js";
import { runRowView } from "../run-and-pipeline-views.js";
import { readerDb, readerWarehouse } from "./compiled-read.js";

/** A rejected record as the run page shows it. */
interface RejectExample {
  id: number;
  pipeline: string;
  table: string;
  reason: string;
  record: unknown;
  at: string;
}

/** An event the run sent (one per webhook or address it went to; which one is never shown). */
interface RunEvent {
  eventId: string;
  kind: string;
  /** delivered; failed: its last try failed (tried again until given up); pending: not tried yet. */
  state: "delivered" | "failed" | "pending";
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  /** The last failed try's error, short and redacted when written (store/outbox-claim.ts). */
  error: string | null;
}

export interface RunPage {
  run: ReturnType<typeof runRowView>;
  warnings: string[];
  /** Per pipeline, as `skillsync runs ID` counts them (store/run-detail.ts). */
  pipelines: RunDetail["pipelines"];
  loads: LoadRow[];
  rejects: { total: number; reasons: { reason: string; count: number }[]; examples: RejectExample[] };
  /** The failed and ambiguous calls' codes and messages, per pipeline. */
  errors: { pipeline: string; code: string; message: string; count: number }[];
  events: RunEvent[];
}

const REJECT_EXAMPLES = 50;

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)).toISOString());

/** The run's rejected records by reason, most frequent first, and the first few of them. */
async function rejectsOf(db: Kysely<AnyDB>, id: string): Promise<RunPage["rejects"]> {
  const [reasons, examples] = await Promise.all([
    db
      .selectFrom("skillsync_rejects")
      .select((eb) => ["reason", eb.fn.countAll().as("n")])
      .where("run_id", "=", id)
      .groupBy("reason")
      .orderBy("n", "desc")
      .orderBy("reason")
      .execute(),
    db
      .selectFrom("skillsync_rejects")
      .select(["id", "pipeline", "table_name", "reason", "record", "created_at"])
      .where("run_id", "=", id)
      .orderBy("id")
      .limit(REJECT_EXAMPLES)
      .execute(),
  ]);
  const counted = reasons.map((r) => ({ reason: String(r.reason), count: Number(r.n) }));
  return {
    total: counted.reduce((sum, r) => sum + r.count, 0),
    reasons: counted,
    examples: examples.map((r) => ({
      id: Number(r.id),
      pipeline: String(r.pipeline),
      table: String(r.table_name),
      reason: String(r.reason),
      record: r.record === null ? null : readJson(r.record),
      at: iso(r.created_at) ?? "",
    })),
  };
}

/** The outbox rows of the run, in the order they were written; never their target (a URL's hash). */
async function eventsOf(db: Kysely<AnyDB>, id: string): Promise<RunEvent[]> {
  const rows = await db
    .selectFrom("skillsync_outbox")
    .select(["event_id", "kind", "attempts", "created_at", "delivered_at", "last_error"])
    .where("run_id", "=", id)
    .orderBy("id")
    .execute();
  return rows.map((r) => {
    const delivered = r.delivered_at !== null && r.delivered_at !== undefined;
    return {
      eventId: String(r.event_id),
      kind: String(r.kind),
      state: delivered ? "delivered" : r.last_error ? "failed" : "pending",
      attempts: Number(r.attempts),
      createdAt: iso(r.created_at) ?? "",
      deliveredAt: iso(r.delivered_at),
      error: delivered || !r.last_error ? null : String(r.last_error),
    };
  });
}

/**
 * A run's page: the run as every reader shows it, what `skillsync runs ID` shows per pipeline (the
 * store's own run detail, read as the reader), its loads, rejects by reason with the first
 * examples, the failed calls' errors and the events it sent. Undefined when there is no such run.
 */
export async function readRunPage(w: Warehouse, id: string): Promise<RunPage | undefined> {
  const source = "console run page";
  const detail = await runDetail(readerWarehouse(w, source), id);
  if (!detail) return undefined;
  const db = readerDb(w, source);
  const [rejects, events] = await Promise.all([rejectsOf(db, id), eventsOf(db, id)]);
  return {
    run: runRowView(detail.run),
    warnings: detail.warnings,
    pipelines: detail.pipelines,
    loads: detail.loads,
    rejects,
    errors: detail.pipelines.flatMap((p) => p.failures.map((f) => ({ pipeline: p.pipeline, ...f }))),
    events,
  };
}
