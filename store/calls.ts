import { type Kysely, sql } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { runReused } from "../connectors/warehouse/reused-query.js";
import { redact } from "../core/redact.js";

/**
 * `reserved`: credits held, about to be sent or in flight; `answered`: paid, its answer stored, not
 * loaded yet (a crash then costs nothing: the restarted run loads it from the store);
 * `succeeded`: answered and loaded (or a report call finished); `cached`: answered from the store;
 * `shared`: answered by another run's call of the same request.
 */
export type CallOutcome =
  | "reserved"
  | "answered"
  | "succeeded"
  | "failed"
  | "ambiguous"
  | "cached"
  | "shared"
  | "interrupted";

export interface CallRecord {
  runId: string;
  pipeline: string;
  skill: string;
  requestHash: string;
  credits: number;
  /** Rows its answer's load wrote (a reused answer's row is inserted in that load's transaction). */
  loadedRows?: number;
}

const now = () => new Date().toISOString();

/** A ledger row as inserted. */
export function callRow(c: CallRecord, outcome: CallOutcome, at: string) {
  return {
    run_id: c.runId,
    pipeline: c.pipeline,
    skill: c.skill,
    request_hash: c.requestHash,
    outcome,
    credits: c.credits,
    started_at: at,
    attempts: 0,
    loaded_rows: c.loadedRows ?? null,
  };
}

/** Inserts a ledger row (inside the reservation's transaction for paid calls). */
export async function insertCall(db: Kysely<AnyDB>, c: CallRecord, outcome: CallOutcome): Promise<number> {
  const row = await db
    .insertInto("skillsync_calls")
    .values(callRow(c, outcome, now()))
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Inserts ledger rows in one statement (answers reused from the store, loaded together). */
export async function insertCalls(
  db: Kysely<AnyDB>,
  calls: CallRecord[],
  outcome: CallOutcome,
): Promise<void> {
  if (!calls.length) return;
  const at = now();
  await db
    .insertInto("skillsync_calls")
    .values(calls.map((c) => callRow(c, outcome, at)))
    .execute();
}

/**
 * Inserts reserved ledger rows in one statement. Returns their ids by request hash, in id order
 * for a hash asked twice (RETURNING's order is not promised).
 */
export async function insertReserved(db: Kysely<AnyDB>, calls: CallRecord[]): Promise<Map<string, number[]>> {
  const at = now();
  const rows = await db
    .insertInto("skillsync_calls")
    .values(calls.map((c) => callRow(c, "reserved", at)))
    .returning(["id", "request_hash"])
    .execute();
  const ids = new Map<string, number[]>();
  for (const r of [...rows].sort((a, b) => Number(a.id) - Number(b.id))) {
    const list = ids.get(r.request_hash as string) ?? [];
    list.push(Number(r.id));
    ids.set(r.request_hash as string, list);
  }
  return ids;
}

export interface CallEnd {
  outcome: CallOutcome;
  credits?: number;
  httpStatus?: number | undefined;
  errorCode?: string | undefined;
  error?: string | undefined;
  traceId?: string | null | undefined;
  attempts?: number | undefined;
  elapsedMs?: number | undefined;
  /** Rows its answer's load wrote, when the call is finished in that load's transaction. */
  loadedRows?: number | undefined;
}

/** A trace id as stored: the API's text, so redacted like error messages (and kept short). */
export function storedTraceId(traceId: string | null | undefined): string | null {
  return traceId === null || traceId === undefined ? null : redact(traceId).slice(0, 500);
}

export async function finishCall(db: Kysely<AnyDB>, id: number, end: CallEnd): Promise<void> {
  await db
    .updateTable("skillsync_calls")
    .set({
      outcome: end.outcome,
      ...(end.credits === undefined ? {} : { credits: end.credits }),
      http_status: end.httpStatus ?? null,
      error_code: end.errorCode ?? null,
      error: end.error === undefined ? null : redact(end.error).slice(0, 2000),
      trace_id: storedTraceId(end.traceId),
      attempts: end.attempts ?? 0,
      elapsed_ms: end.elapsedMs === undefined ? null : Math.round(end.elapsedMs),
      loaded_rows: end.loadedRows ?? null,
      finished_at: now(),
    })
    .where("id", "=", id)
    .execute();
}

/**
 * Marks paid calls answered in one statement (the answers kept together), each row with its own
 * status, trace id, attempts and time, chosen by id.
 */
export async function finishAnswered(
  db: Kysely<AnyDB>,
  calls: { id: number; end: CallEnd }[],
): Promise<void> {
  if (calls.length === 1) return finishCall(db, calls[0]!.id, { ...calls[0]!.end, outcome: "answered" });
  if (!calls.length) return;
  // Per call, in this order: its id, then the values of its row.
  const PER_CALL = 5;
  const values = calls.flatMap(({ id, end: e }) => [
    id,
    e.httpStatus ?? null,
    storedTraceId(e.traceId),
    e.attempts ?? 0,
    e.elapsedMs === undefined ? null : Math.round(e.elapsedMs),
  ]);
  values.push(now());
  await runReused(db, `finish-answered:${calls.length}`, values, (slot) => {
    const id = (i: number) => slot(i * PER_CALL);
    return db
      .updateTable("skillsync_calls")
      .set({
        outcome: "answered",
        http_status: byId(calls.length, id, slot, PER_CALL, "integer", 1),
        error_code: null,
        error: null,
        trace_id: byId(calls.length, id, slot, PER_CALL, "text", 2),
        attempts: byId(calls.length, id, slot, PER_CALL, "integer", 3),
        elapsed_ms: byId(calls.length, id, slot, PER_CALL, "integer", 4),
        finished_at: slot(calls.length * PER_CALL),
      })
      .where(
        "id",
        "in",
        calls.map((_, i) => id(i)),
      );
  });
}

/**
 * Marks answered calls loaded: `succeeded`, with the rows each answer's load wrote (inside that
 * load's transaction, so a resumed run knows what is loaded).
 */
export async function finishLoaded(db: Kysely<AnyDB>, calls: { id: number; rows: number }[]): Promise<void> {
  if (!calls.length) return;
  const values = calls.flatMap(({ id, rows }) => [id, rows]);
  await runReused(db, `finish-loaded:${calls.length}`, values, (slot) => {
    const id = (i: number) => slot(i * 2);
    return db
      .updateTable("skillsync_calls")
      .set({ outcome: "succeeded", loaded_rows: byId(calls.length, id, slot, 2, "integer", 1) })
      .where(
        "id",
        "in",
        calls.map((_, i) => id(i)),
      );
  });
}

/** A CASE choosing, per call id, the value at `member` of its slots (cast: Postgres types bare parameters as text). */
function byId(
  n: number,
  id: (i: number) => unknown,
  slot: (i: number) => unknown,
  perCall: number,
  type: "integer" | "text",
  member: number,
) {
  return sql`case id ${sql.join(
    Array.from(
      { length: n },
      (_, i) => sql`when ${id(i)} then cast(${slot(i * perCall + member)} as ${sql.raw(type)})`,
    ),
    sql` `,
  )} end`;
}

/**
 * Marks the kept answers of an earlier part of this run loaded, once a resumed batched pipeline has
 * loaded them through their items' parts (counted there): `succeeded`, no rows of their own.
 */
export async function settleAnswered(db: Kysely<AnyDB>, runId: string, pipeline: string): Promise<void> {
  await db
    .updateTable("skillsync_calls")
    .set({ outcome: "succeeded", loaded_rows: 0 })
    .where("run_id", "=", runId)
    .where("pipeline", "=", pipeline)
    .where("outcome", "=", "answered")
    .execute();
}

/** This run's calls of `pipeline` paid and kept but never loaded (a crash came between): request hash → ledger id. */
export async function answeredCalls(
  db: Kysely<AnyDB>,
  runId: string,
  pipeline: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("skillsync_calls")
    .select(["id", "request_hash"])
    .where("run_id", "=", runId)
    .where("pipeline", "=", pipeline)
    .where("outcome", "=", "answered")
    .execute();
  return new Map(rows.map((r) => [r.request_hash as string, Number(r.id)]));
}
