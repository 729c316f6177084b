import { gunzipSync, gzipSync } from "node:zlib";
import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { runReused } from "../connectors/warehouse/reused-query.js";
import { storedTraceId } from "./calls.js";
import { bodyOf } from "./chunks.js";

export interface StoredResponse {
  data: Record<string, unknown>;
  receivedAt: string;
  traceId: string | null;
}

// Level 1: a third of the default's CPU per call for JSON that still shrinks about fivefold. An
// 8 KiB window and a small hash table shrink the same (answers are tens of KiB) and keep each
// call's compressor state under 64 KiB: a fifth less CPU, and no 300 KiB allocation per call for
// malloc to leave scattered (resident memory kept growing through a long run).
const STORED_GZIP = { level: 1, windowBits: 13, memLevel: 5 } as const;

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

/**
 * The requests of the answers this run loaded for this pipeline (its ledger rows `succeeded`
 * whose request has a stored answer): what a resumed run need not load again.
 */
export async function loadedRequests(
  db: Kysely<AnyDB>,
  runId: string,
  pipeline: string,
): Promise<Record<string, unknown>[]> {
  const rows = await db
    .selectFrom("skillsync_calls as c")
    .innerJoin("skillsync_responses as r", "r.request_hash", "c.request_hash")
    .select("r.request")
    .where("c.run_id", "=", runId)
    .where("c.pipeline", "=", pipeline)
    .where("c.outcome", "=", "succeeded")
    .execute();
  return rows.map((r) =>
    typeof r.request === "string"
      ? (JSON.parse(r.request) as Record<string, unknown>)
      : (r.request as Record<string, unknown>),
  );
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
    .select(["request_hash", "body", "chunks", "body_form", "received_at", "trace_id"])
    .where("request_hash", "in", hashes)
    .execute();
  for (const row of rows) {
    const hash = row.request_hash as string;
    const stored = JSON.parse(gunzipSync(await bodyOf(db, hash, row)).toString("utf8")) as unknown;
    out.set(hash, {
      data: (row.body_form === "envelope" ? (stored as { data: unknown }).data : stored) as Record<
        string,
        unknown
      >,
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
  /**
   * The whole answer as it arrived (secrets redacted), whose `data` is `data`: stored as it is
   * rather than `data` written out again. Absent for a part made here (a batch's item part).
   */
  envelopeText?: string | null | undefined;
  traceId: string | null;
  runId: string;
  receivedAt: string;
}

/** Stores a successful response, compressed, keyed by its request hash (the newest wins). */
export async function storeResponse(db: Kysely<AnyDB>, r: ResponseToStore): Promise<void> {
  await upsertResponseRows(db, responseRows([r]));
}

/**
 * The rows that store these responses, one per hash (an upsert cannot touch the same row twice in
 * one statement; the last given wins). Compressed here, on the event loop: Node's asynchronous
 * gzip makes a stream per answer, which measured 11 % more CPU per call than the ~0.1 ms this
 * takes (docs/benchmarks.md, 2026-11-27).
 */
export function responseRows(list: ResponseToStore[]): ResponseRow[] {
  const byHash = new Map(list.map((r) => [r.hash, r]));
  return [...byHash.values()].map((r) => {
    const text = r.envelopeText ?? JSON.stringify(r.data);
    return {
      request_hash: r.hash,
      skill: r.skill,
      request: JSON.stringify(r.request),
      body: gzipSync(Buffer.from(text, "utf8"), STORED_GZIP),
      chunks: 0,
      body_form: r.envelopeText ? "envelope" : "data",
      trace_id: storedTraceId(r.traceId),
      run_id: r.runId,
      received_at: r.receivedAt,
    } satisfies ResponseRow;
  });
}

/** A `skillsync_responses` row: the gzipped body in the row, or empty with `chunks` pieces. */
export interface ResponseRow {
  request_hash: string;
  skill: string;
  request: string;
  body: Buffer;
  chunks: number;
  /** What the body holds: the answer's `data`, or the whole answer (migrations/017_response_form.ts). */
  body_form: "data" | "envelope";
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
  "body_form",
  "trace_id",
  "run_id",
  "received_at",
] as const satisfies readonly (keyof ResponseRow)[];

/**
 * Inserts response rows, replacing the stored answer of a hash already there. Rows go in hash
 * order: runs at once storing answers to the same requests then lock them in the same order, where
 * two different orders deadlock on Postgres.
 */
export async function upsertResponseRows(db: Kysely<AnyDB>, given: ResponseRow[]): Promise<void> {
  const rows = [...given].sort((a, b) =>
    a.request_hash < b.request_hash ? -1 : a.request_hash > b.request_hash ? 1 : 0,
  );
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
          body_form: eb.ref("excluded.body_form"),
          trace_id: eb.ref("excluded.trace_id"),
          run_id: eb.ref("excluded.run_id"),
          received_at: eb.ref("excluded.received_at"),
        })),
      ),
  );
}
