import { readJson } from "../connectors/warehouse/adapter.js";
import type { Warehouse } from "../connectors/warehouse/open.js";

/** A rejected record of a run, as stored. */
export interface RunReject {
  id: number;
  pipeline: string;
  table: string;
  reason: string;
  record: unknown;
  /** When it was written. */
  at: string;
}

/** An outbox row of a run, without its target (a webhook URL's or address's hash). */
export interface RunOutboxRow {
  eventId: string;
  kind: string;
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  /** The last failed try's error, short and redacted when written (store/outbox-claim.ts). */
  lastError: string | null;
}

const iso = (v: unknown) =>
  v === null || v === undefined ? null : (v instanceof Date ? v : new Date(String(v))).toISOString();

/**
 * A run's rejected records counted by reason, most frequent first, and the first `examples` of
 * them in the order they were written.
 */
export async function rejectsOfRun(
  w: Warehouse,
  id: string,
  examples: number,
): Promise<{ reasons: { reason: string; count: number }[]; examples: RunReject[] }> {
  const [reasons, first] = await Promise.all([
    w.db
      .selectFrom("skillsync_rejects")
      .select((eb) => ["reason", eb.fn.countAll().as("n")])
      .where("run_id", "=", id)
      .groupBy("reason")
      .orderBy("n", "desc")
      .orderBy("reason")
      .execute(),
    w.db
      .selectFrom("skillsync_rejects")
      .select(["id", "pipeline", "table_name", "reason", "record", "created_at"])
      .where("run_id", "=", id)
      .orderBy("id")
      .limit(examples)
      .execute(),
  ]);
  return {
    reasons: reasons.map((r) => ({ reason: String(r.reason), count: Number(r.n) })),
    examples: first.map((r) => ({
      id: Number(r.id),
      pipeline: String(r.pipeline),
      table: String(r.table_name),
      reason: String(r.reason),
      record: r.record === null ? null : readJson(r.record),
      at: iso(r.created_at) ?? "",
    })),
  };
}

/** The outbox rows of a run, in the order they were written. */
export async function outboxOfRun(w: Warehouse, id: string): Promise<RunOutboxRow[]> {
  const rows = await w.db
    .selectFrom("skillsync_outbox")
    .select(["event_id", "kind", "attempts", "created_at", "delivered_at", "last_error"])
    .where("run_id", "=", id)
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    eventId: String(r.event_id),
    kind: String(r.kind),
    attempts: Number(r.attempts),
    createdAt: iso(r.created_at) ?? "",
    deliveredAt: iso(r.delivered_at),
    lastError: r.last_error === null || r.last_error === undefined ? null : String(r.last_error),
  }));
}
