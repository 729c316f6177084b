import { type Kysely, sql } from "kysely";
import type { AnyDB } from "./adapter.js";

let savepoints = 0;

/**
 * Runs `fn` all or nothing: in a transaction of its own, or, when `db` is a transaction already,
 * in a savepoint of it. So DDL that makes its own transaction also runs inside a trial that is
 * rolled back as a whole (engine/run/make-tables.ts checks a pipeline's SQL that way).
 *
 * @example await atomically(db, async (trx) => { await sql`drop view v`.execute(trx); await sql`create view v as select 1`.execute(trx); });
 */
export async function atomically<T>(db: Kysely<AnyDB>, fn: (trx: Kysely<AnyDB>) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute(fn);
  const name = sql.raw(`skillsync_atomic_${++savepoints}`);
  await sql`savepoint ${name}`.execute(db);
  try {
    const result = await fn(db);
    await sql`release savepoint ${name}`.execute(db);
    return result;
  } catch (err) {
    await sql`rollback to savepoint ${name}`.execute(db);
    throw err;
  }
}
