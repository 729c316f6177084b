import { type Kysely, sql } from "kysely";
import type { AnyDB, WarehouseAdapter } from "../adapter.js";
import { atomically } from "../atomic.js";
import { commentView } from "./keys.js";

/**
 * `WarehouseAdapter.ensureView` on Postgres: the mark ends the view's `COMMENT ON VIEW`.
 * Replacing a view waits for every query reading it (and every later reader waits behind that),
 * hence the look first.
 */
export const ensureView: WarehouseAdapter["ensureView"] = async (db, name, body, mark, comments) => {
  const r = await sql<{ mark: string | null }>`
    select obj_description(c.oid, 'pg_class') as mark from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where c.relname = ${name} and n.nspname = current_schema() and c.relkind = 'v'`.execute(db);
  if (r.rows[0]?.mark?.endsWith(`(${mark})`)) return;
  const replace = (dropFirst: boolean) =>
    atomically(db, async (trx: Kysely<AnyDB>) => {
      if (dropFirst) await sql.raw(`drop view if exists "${name}"`).execute(trx);
      await sql.raw(`create or replace view "${name}" as ${body}`).execute(trx);
      await commentView(trx, name, `${comments.view} (${mark})`, comments.column);
    });
  try {
    // Replaced in place where Postgres allows it: views a user built on top of it keep working.
    await replace(false);
  } catch (err) {
    // Columns removed, renamed or retyped: only a new view will do (refused if others depend on it).
    if (!/cannot (drop columns from|change name of|change data type of) view/i.test(String(err))) throw err;
    await replace(true);
  }
};
