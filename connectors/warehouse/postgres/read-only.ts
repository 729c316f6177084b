import type pg from "pg";
import { ValidationError } from "../../../core/errors.js";
import { type DialectReadOptions, ReadTimeoutError } from "../read-timeout.js";
import { exactPgTypes } from "./exact-types.js";

/** How long after `statement_timeout` the client stops waiting and cancels from another connection. */
const GRACE_MS = 1_000;

/**
 * One read on Postgres: a connection of its own from the pool, `BEGIN READ ONLY` with local time
 * limits (one round trip), the statement alone with the extended query protocol (one statement, no
 * way to end the transaction), then ROLLBACK and the release of any advisory lock a view may have
 * taken, so the connection goes back to the pool as it came (settings made with set_config revert
 * with the rollback; temporary tables, cursors, prepared statements and LISTEN cannot be made from a
 * read). A connection whose statement failed or was cancelled is closed instead. If the server does
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
    let r: pg.QueryResult<Record<string, unknown>>;
    try {
      r = await client.query<Record<string, unknown>>({
        text,
        values: [...o.params],
        queryMode: "extended",
        ...(o.exactIntegers ? { types: exactPgTypes } : {}),
      } as pg.QueryConfig);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (timedOut || e.code === "57014") throw new ReadTimeoutError(o.timeoutMs, o.source);
      throw new ValidationError(o.source, [{ path: [], message: e.message ?? String(err) }]);
    }
    await client.query("rollback; select pg_advisory_unlock_all()");
    reuse = !timedOut;
    if (o.cutAt !== undefined) return r.rows.slice(0, o.cutAt + 1);
    if (r.rows.length > o.maxRows) {
      throw new ValidationError(o.source, [
        { path: [], message: `returned more than ${o.maxRows} rows; add a LIMIT` },
      ]);
    }
    return r.rows;
  } finally {
    clearTimeout(timer);
    // A connection whose statement failed (or was cancelled) is closed, not returned to the pool.
    client.release(!reuse);
  }
}
