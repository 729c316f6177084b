import type pg from "pg";
import { ValidationError } from "../../../core/errors.js";
import { type DialectReadOptions, ReadTimeoutError } from "../read-timeout.js";
import { readThroughCursor } from "./read-cursor.js";

/** How long after `statement_timeout` the client stops waiting and cancels from another connection. */
const GRACE_MS = 1_000;

/**
 * One read on Postgres: a connection of its own from the reader's pool, `BEGIN READ ONLY` with local
 * time limits (one round trip), the statement alone with the extended query protocol (one
 * statement, no way to end the transaction), then ROLLBACK and DISCARD ALL, so the connection goes
 * back to the pool as it came (no prepared statement, cursor, advisory lock, LISTEN or setting
 * survives). A connection whose statement failed or was cancelled is closed instead. If the server does
 * not stop the statement in time, the client cancels the backend from another connection.
 */
export async function postgresReadOnly(
  pool: pg.Pool,
  text: string,
  o: DialectReadOptions,
): Promise<Record<string, unknown>[]> {
  const client = await pool.connect();
  let reuse = false;
  const pid = (client as unknown as { processID?: number }).processID;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (pid !== undefined) void pool.query("select pg_cancel_backend($1)", [pid]).catch(() => {});
  }, o.timeoutMs + GRACE_MS);
  const ms = Math.max(1, Math.floor(o.timeoutMs));
  try {
    // Our own text, so several statements in one round trip. Postgres 14+ also notices a client
    // that went away during a long statement (client_connection_check_interval) and stops it.
    await client.query(
      [
        "begin transaction isolation level repeatable read read only",
        `set local statement_timeout = ${ms}`,
        `set local lock_timeout = ${Math.min(5_000, ms)}`,
        `set local idle_in_transaction_session_timeout = ${ms + 5_000}`,
        "select set_config(name, '1000', true) from pg_settings where name = 'client_connection_check_interval'",
      ].join("; "),
    );
    let rows: Record<string, unknown>[];
    try {
      // A cursor, so a read stops where its caller's bounds say (rows, bytes) instead of holding all.
      rows = await readThroughCursor(client, text, o);
    } catch (err) {
      if (err instanceof ValidationError) throw err;
      const e = err as { code?: string; message?: string };
      if (timedOut || e.code === "57014") throw new ReadTimeoutError(o.timeoutMs, o.source);
      throw new ValidationError(o.source, [{ path: [], message: e.message ?? String(err) }]);
    }
    await client.query("rollback");
    // Whatever a statement left in the session (a PREPARE run as text by a function, a session
    // advisory lock, a setting): gone before the connection serves the next read. DISCARD may not
    // share a round trip with the ROLLBACK (it refuses to run inside a multi-statement string).
    await client.query("discard all");
    reuse = !timedOut;
    return rows;
  } finally {
    clearTimeout(timer);
    // A connection whose statement failed (or was cancelled) is closed, not returned to the pool.
    client.release(!reuse);
  }
}
