import { gunzipSync, gzipSync } from "node:zlib";
import { type Kysely, sql } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { runReused } from "../connectors/warehouse/reused-query.js";
import { redact } from "../core/redact.js";
import { bodyOf } from "./chunks.js";

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

export interface StoredResponse {
  data: Record<string, unknown>;
  receivedAt: string;
  traceId: string | null;
}

const now = () => new Date().toISOString();

// Level 1: a third of the default's CPU per call for JSON that still shrinks about fivefold. An
// 8 KiB window and a small hash table shrink the same (answers are tens of KiB) and keep each
// call's compressor state under 64 KiB: a fifth less CPU, and no 300 KiB allocation per call for
// malloc to leave scattered (resident memory kept growing through a long run).
const STORED_GZIP = { level: 1, windowBits: 13, memLevel: 5 } as const;

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
function storedTraceId(traceId: string | null | undefined): string | null {
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

/**
 * Which of `hashes` have a stored answer younger than `freshnessMs` (or stored by `runId`): one
 * query, no body read.
 */
export async function freshHashes(
  db: Kysely<AnyDB>,
  hashes: string[],
  freshnessMs: number,
  runId?: string,
): Promise<string[]> {
  return (await freshStored(db, hashes, freshnessMs, runId)).map((f) => f.hash);
}

/** As `freshHashes`, saying of each whether `runId` stored it (a resumed run's own earlier part). */
export async function freshStored(
  db: Kysely<AnyDB>,
  hashes: string[],
  freshnessMs: number,
  runId?: string,
): Promise<{ hash: string; own: boolean }[]> {
  if (!hashes.length) return [];
  const rows = await db
    .selectFrom("skillsync_responses")
    .select(["request_hash", "received_at", "run_id"])
    .where("request_hash", "in", hashes)
    .execute();
  const fresh = isFresh(freshnessMs, runId);
  return rows
    .filter(fresh)
    .map((row) => ({ hash: row.request_hash as string, own: runId !== undefined && row.run_id === runId }));
}

/** A stored answer's row (`received_at`, `run_id`) that may answer a call instead of paying for it. */
export function isFresh(freshnessMs: number, runId?: string) {
  const now = Date.now();
  return (row: { received_at: unknown; run_id: unknown }): boolean => {
    if (runId !== undefined && row.run_id === runId) return true;
    return freshnessMs > 0 && now - new Date(row.received_at as string).getTime() <= freshnessMs;
  };
}

/**
 * The stored successful responses of these requests that are younger than `freshnessMs` — or, for
 * a resumed run, that this same run stored (a resume never pays again, whatever the freshness):
 * two queries at most (which are fresh, then their bodies).
 */
export async function freshResponses(
  db: Kysely<AnyDB>,
  hashes: string[],
  freshnessMs: number,
  runId?: string,
): Promise<Map<string, StoredResponse>> {
  return storedResponses(db, await freshHashes(db, hashes, freshnessMs, runId));
}

/** The stored answers of `hashes` (known to be fresh), read and parsed. */
export async function storedResponses(
  db: Kysely<AnyDB>,
  hashes: string[],
): Promise<Map<string, StoredResponse>> {
  const out = new Map<string, StoredResponse>();
  if (!hashes.length) return out;
  const rows = await db
    .selectFrom("skillsync_responses")
    .select(["request_hash", "body", "chunks", "received_at", "trace_id"])
    .where("request_hash", "in", hashes)
    .execute();
  for (const row of rows) {
    const hash = row.request_hash as string;
    const data = JSON.parse(gunzipSync(await bodyOf(db, hash, row)).toString("utf8")) as Record<
      string,
      unknown
    >;
    out.set(hash, {
      data,
      receivedAt: new Date(row.received_at as string).toISOString(),
      traceId: (row.trace_id as string | null) ?? null,
    });
  }
  return out;
}

export interface ResponseToStore {
  hash: string;
  skill: string;
  request: Record<string, unknown>;
  data: unknown;
  traceId: string | null;
  runId: string;
  receivedAt: string;
}

/** Stores a successful response, compressed, keyed by its request hash (the newest wins). */
export function storeResponse(db: Kysely<AnyDB>, r: ResponseToStore): Promise<void> {
  return storeResponses(db, [r]);
}

/** Stores successful responses in one statement (a hash given twice: the last wins). */
export async function storeResponses(db: Kysely<AnyDB>, list: ResponseToStore[]): Promise<void> {
  if (!list.length) return;
  // One row per hash: an upsert cannot touch the same row twice in one statement.
  const byHash = new Map(list.map((r) => [r.hash, r]));
  await upsertResponseRows(
    db,
    [...byHash.values()].map((r) => ({
      request_hash: r.hash,
      skill: r.skill,
      request: JSON.stringify(r.request),
      body: gzipSync(Buffer.from(JSON.stringify(r.data), "utf8"), STORED_GZIP),
      chunks: 0,
      trace_id: storedTraceId(r.traceId),
      run_id: r.runId,
      received_at: r.receivedAt,
    })),
  );
}

/** A `skillsync_responses` row: the gzipped body in the row, or empty with `chunks` pieces. */
export interface ResponseRow {
  request_hash: string;
  skill: string;
  request: string;
  body: Buffer;
  chunks: number;
  trace_id: string | null;
  run_id: string;
  received_at: string;
}

const RESPONSE_COLUMNS = [
  "request_hash",
  "skill",
  "request",
  "body",
  "chunks",
  "trace_id",
  "run_id",
  "received_at",
] as const satisfies readonly (keyof ResponseRow)[];

/** Inserts response rows, replacing the stored answer of a hash already there. */
export async function upsertResponseRows(db: Kysely<AnyDB>, rows: ResponseRow[]): Promise<void> {
  const width = RESPONSE_COLUMNS.length;
  const values = rows.flatMap((r) => RESPONSE_COLUMNS.map((c) => r[c]));
  await runReused(db, `responses:${rows.length}`, values, (slot) =>
    db
      .insertInto("skillsync_responses")
      .values(
        rows.map((_, i) => Object.fromEntries(RESPONSE_COLUMNS.map((c, j) => [c, slot(i * width + j)]))),
      )
      .onConflict((oc) =>
        oc.column("request_hash").doUpdateSet((eb) => ({
          body: eb.ref("excluded.body"),
          chunks: eb.ref("excluded.chunks"),
          trace_id: eb.ref("excluded.trace_id"),
          run_id: eb.ref("excluded.run_id"),
          received_at: eb.ref("excluded.received_at"),
        })),
      ),
  );
}

/**
 * Whether this run already loaded the answer to `hash` for `pipeline`: its ledger row says so, or
 * a load marker does (report parts, and loads by versions before `005_call_loads`).
 */
export async function isLoaded(
  w: Warehouse,
  runId: string,
  pipeline: string,
  hash: string,
): Promise<boolean> {
  const loadedIn = (table: string, also = sql``) =>
    sql`exists (select 1 from ${sql.table(table)}
      where request_hash = ${hash} and run_id = ${runId} and pipeline = ${pipeline}${also})`;
  const r = await sql<{ loaded: number }>`select case
      when ${loadedIn("skillsync_calls", sql` and loaded_rows is not null`)} or ${loadedIn("skillsync_part_loads")}
      then 1 else 0 end as loaded`.execute(w.db);
  return Number(r.rows[0]?.loaded) === 1;
}

export interface LoadMark {
  runId: string;
  pipeline: string;
  hash: string;
  rows: number;
}

/** Load markers of report parts (a call's own load is marked on its ledger row), in one statement. */
export async function markLoaded(db: Kysely<AnyDB>, marks: LoadMark[]): Promise<void> {
  if (!marks.length) return;
  const at = now();
  await db
    .insertInto("skillsync_part_loads")
    .values(
      marks.map((m) => ({
        run_id: m.runId,
        pipeline: m.pipeline,
        request_hash: m.hash,
        rows: m.rows,
        loaded_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(["run_id", "pipeline", "request_hash"]).doNothing())
    .execute();
}

export interface RejectToStore {
  table: string;
  reason: string;
  record: unknown;
  hash: string;
}

/** Rejected records, each with the request hash of the answer it came in. */
export async function insertRejects(
  db: Kysely<AnyDB>,
  runId: string,
  pipeline: string,
  rejects: RejectToStore[],
): Promise<void> {
  if (!rejects.length) return;
  const at = now();
  await db
    .insertInto("skillsync_rejects")
    .values(
      rejects.map((r) => ({
        run_id: runId,
        pipeline,
        table_name: r.table,
        request_hash: r.hash,
        reason: r.reason,
        record: JSON.stringify(r.record ?? null),
        created_at: at,
      })),
    )
    .execute();
}
