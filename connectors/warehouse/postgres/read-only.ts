import type pg from "pg";
import Cursor from "pg-cursor";
import { SkillsyncError, ValidationError } from "../../../core/errors.js";
import {
  type BatchReadDialectOptions,
  type DialectReadOptions,
  type ReadPath,
  ReadTimeoutError,
  type ResultColumn,
} from "../read-timeout.js";
import { readThroughCursor } from "./read-cursor.js";
import type { ReaderSlot } from "./reader.js";
import { exactPgTypes } from "./types.js";

/** How long after `statement_timeout` the client stops waiting and cancels from another connection. */
const GRACE_MS = 1_000;

/** The read path of a Postgres warehouse: the reader login's pool (postgres/reader.ts). */
export function postgresReadPath(reader: ReaderSlot): ReadPath {
  return {
    rows: async (text, o, login) => postgresReadOnly(await reader.pool(login), text, o),
    batches: async (text, o, login) => postgresReadBatches(await reader.pool(login), text, o),
  };
}

/**
 * One read on Postgres: a connection of its own from the reader's pool, `BEGIN READ ONLY` with local
 * time limits (one round trip), the statement alone with the extended query protocol (one
 * statement, no way to end the transaction), then ROLLBACK and DISCARD ALL, so the connection goes
 * back to the pool as it came (no prepared statement, cursor, advisory lock, LISTEN or setting
 * survives). A connection whose statement failed or was cancelled is closed instead. If the server does
 * not stop the statement in time, the client cancels the backend from another connection.
 */
function postgresReadOnly(
  pool: pg.Pool,
  text: string,
  o: DialectReadOptions,
): Promise<Record<string, unknown>[]> {
  // A cursor, so a read stops where its caller's bounds say (rows, bytes) instead of holding all.
  return inReadTransaction(pool, o.timeoutMs, o.source, (client) => readThroughCursor(client, text, o));
}

/**
 * One read-only statement read a batch at a time (`skillsync export`): the same transaction as
 * `postgresReadOnly`, the cursor handing each batch to `onBatch` (awaited before the next is
 * asked for), so no more than a batch or two are ever held. `timeoutMs` undefined: no time limit
 * (statement_timeout and idle_in_transaction_session_timeout off for this transaction only).
 */
function postgresReadBatches(pool: pg.Pool, text: string, o: BatchReadDialectOptions): Promise<number> {
  return inReadTransaction(pool, o.timeoutMs, o.source, async (client) => {
    const cursor = client.query(
      new Cursor<unknown[]>(text, [...o.params], {
        rowMode: "array",
        ...(o.exactIntegers ? { types: exactPgTypes } : {}),
      }),
    );
    let total = 0;
    let first = true;
    for (;;) {
      const { rows: batch, fields } = await readWithFields(cursor, o.batchRows);
      if (first) {
        first = false;
        try {
          await o.onColumns?.(
            fields.map((f) => ({ name: f.name, type: PG_RESULT_TYPES[f.dataTypeID] ?? "text" })),
          );
        } catch (err) {
          throw new SinkFailure(err);
        }
      }
      if (batch.length) {
        total += batch.length;
        try {
          await o.onBatch(batch);
        } catch (err) {
          throw new SinkFailure(err);
        }
      }
      if (batch.length < o.batchRows) break;
    }
    await cursor.close();
    return total;
  });
}

/** What a Postgres type (by oid) is in a result read in batches; any other type is text. */
const PG_RESULT_TYPES: Record<number, ResultColumn["type"]> = {
  16: "boolean",
  17: "blob",
  20: "integer",
  21: "integer",
  23: "integer",
  26: "integer",
  114: "json",
  3802: "json",
  700: "number",
  701: "number",
  1700: "decimal",
  1082: "date",
  1114: "timestamp",
  1184: "timestamp",
};

function readWithFields(
  cursor: Cursor<unknown[]>,
  n: number,
): Promise<{ rows: unknown[][]; fields: { name: string; dataTypeID: number }[] }> {
  return new Promise((resolve, reject) => {
    cursor.read(n, (err, rows, result) =>
      err ? reject(err) : resolve({ rows, fields: result?.fields ?? [] }),
    );
  });
}

/** The caller's own failure while taking a batch: passed on as it is, not as a bad statement. */
class SinkFailure extends Error {
  constructor(cause: unknown) {
    super("batch", { cause });
  }
}

async function inReadTransaction<T>(
  pool: pg.Pool,
  timeoutMs: number | undefined,
  source: string,
  read: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let reuse = false;
  const pid = (client as unknown as { processID?: number }).processID;
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          if (pid !== undefined) void pool.query("select pg_cancel_backend($1)", [pid]).catch(() => {});
        }, timeoutMs + GRACE_MS);
  // 0 turns a Postgres time limit off (for this transaction only: `set local`).
  const ms = timeoutMs === undefined ? 0 : Math.max(1, Math.floor(timeoutMs));
  try {
    // Our own text, so several statements in one round trip. Postgres 14+ also notices a client
    // that went away during a long statement (client_connection_check_interval) and stops it.
    await client.query(
      [
        "begin transaction isolation level repeatable read read only",
        `set local statement_timeout = ${ms}`,
        `set local lock_timeout = ${ms === 0 ? 5_000 : Math.min(5_000, ms)}`,
        `set local idle_in_transaction_session_timeout = ${ms === 0 ? 0 : ms + 5_000}`,
        "select set_config(name, '1000', true) from pg_settings where name = 'client_connection_check_interval'",
      ].join("; "),
    );
    let out: T;
    try {
      out = await read(client);
    } catch (err) {
      if (err instanceof SinkFailure) throw err.cause;
      if (err instanceof SkillsyncError) throw err;
      const e = err as { code?: string; message?: string };
      if (timeoutMs !== undefined && (timedOut || e.code === "57014"))
        throw new ReadTimeoutError(timeoutMs, source);
      throw new ValidationError(source, [{ path: [], message: e.message ?? String(err) }]);
    }
    await client.query("rollback");
    // Whatever a statement left in the session (a PREPARE run as text by a function, a session
    // advisory lock, a setting): gone before the connection serves the next read. DISCARD may not
    // share a round trip with the ROLLBACK (it refuses to run inside a multi-statement string).
    await client.query("discard all");
    reuse = !timedOut;
    return out;
  } finally {
    clearTimeout(timer);
    // A connection whose statement failed (or was cancelled) is closed, not returned to the pool.
    client.release(!reuse);
  }
}
