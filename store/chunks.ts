import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Bytes per stored piece of a report part. A whole part (16 MB gzipped at a million rows) bound as
 * one parameter was the run's peak: better-sqlite3 copies the blob it binds, pg encodes it again.
 * At 1 MiB the copies are small and a part is still a handful of statements.
 */
export const CHUNK_BYTES = 1024 * 1024;

let chunkBytes = CHUNK_BYTES;

/**
 * Sets the piece size, returns the previous one. For tests: a part of a few thousand rows then
 * spans several pieces without building a megabyte of CSV.
 */
export function setChunkBytes(n: number): number {
  const was = chunkBytes;
  chunkBytes = n;
  return was;
}

/** The stored row's parts needed to tell a whole body from one kept in pieces. */
export interface StoredBodyRow {
  body: unknown;
  chunks?: unknown;
}

/** Pieces to read when the row's body is kept in `skillsync_response_chunks`, else 0. */
function chunkCount(row: StoredBodyRow): number {
  // A non-empty body wins: a whole answer stored over a chunked row by an upsert that does not
  // know about `chunks` leaves the count behind, never an empty body.
  if (bytesOf(row.body).length > 0) return 0;
  return Number(row.chunks ?? 0);
}

function bytesOf(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body as Uint8Array);
}

/**
 * Stores the file's bytes as `skillsync_response_chunks` rows for `hash`, replacing any earlier
 * ones, one piece in memory at a time; returns the number of pieces. Read synchronously into one
 * reused buffer: the statements are awaited one by one, and no driver keeps a parameter once its
 * statement is done.
 */
export async function storeChunks(trx: Kysely<AnyDB>, hash: string, file: string): Promise<number> {
  await deleteChunks(trx, hash);
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(size, 1)));
    let seq = 0;
    for (let at = 0; at < size; seq++) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
      // Shorter than its size said: the spool is this process's own file, nothing else truncates it.
      if (n === 0) throw new Error(`${file} ended at ${at} of ${size} bytes`);
      await trx
        .insertInto("skillsync_response_chunks")
        .values({ request_hash: hash, seq, body: buf.subarray(0, n) })
        .execute();
      at += n;
    }
    return seq;
  } finally {
    closeSync(fd);
  }
}

export async function deleteChunks(trx: Kysely<AnyDB>, hash: string): Promise<void> {
  await trx.deleteFrom("skillsync_response_chunks").where("request_hash", "=", hash).execute();
}

/** One stored piece; a missing one means the store is damaged (pieces are written with their row). */
async function chunkAt(db: Kysely<AnyDB>, hash: string, seq: number, count: number): Promise<Buffer> {
  const row = await db
    .selectFrom("skillsync_response_chunks")
    .select("body")
    .where("request_hash", "=", hash)
    .where("seq", "=", seq)
    .executeTakeFirst();
  if (!row) throw new Error(`stored response ${hash} is missing piece ${seq + 1} of ${count}`);
  return bytesOf(row.body);
}

/** All of `b` into an open file, now: a local file takes a piece in microseconds. */
export function writeAll(fd: number, b: Buffer): void {
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at);
}

/** The stored row of a request, as far as its body goes. */
export function storedRow(db: Kysely<AnyDB>, hash: string): Promise<StoredBodyRow | undefined> {
  return db
    .selectFrom("skillsync_responses")
    .select(["body", "chunks"])
    .where("request_hash", "=", hash)
    .executeTakeFirst();
}

/**
 * A stored row's gzipped body, whole, wherever it is kept (in the row, or joined from its pieces):
 * for readers that parse the answer whole anyway. A report part is never read this way; it is
 * spooled a piece at a time (`spoolStoredBody`).
 */
export async function bodyOf(db: Kysely<AnyDB>, hash: string, row: StoredBodyRow): Promise<Buffer> {
  const count = chunkCount(row);
  if (count === 0) return bytesOf(row.body);
  const pieces: Buffer[] = [];
  for (let seq = 0; seq < count; seq++) pieces.push(await chunkAt(db, hash, seq, count));
  return Buffer.concat(pieces);
}

/**
 * Writes the gzipped `data` stored for a request into `file`, one piece in memory at a time when it
 * is kept in pieces (a whole body, stored before pieces existed or by storeResponse, in one write);
 * false when nothing is stored.
 */
export async function spoolStoredBody(db: Kysely<AnyDB>, hash: string, file: string): Promise<boolean> {
  const row = await storedRow(db, hash);
  if (!row) return false;
  const count = chunkCount(row);
  const fd = openSync(file, "w");
  try {
    if (count === 0) writeAll(fd, bytesOf(row.body));
    for (let seq = 0; seq < count; seq++) writeAll(fd, await chunkAt(db, hash, seq, count));
  } finally {
    closeSync(fd);
  }
  return true;
}
