import { type Kysely, sql } from "kysely";
import type { AllOrNoneUpdate, AnyDB } from "../adapter.js";

/**
 * `WarehouseAdapter.updateAllOrNone` on Postgres. The rows are locked first, in key order, by the
 * materialized `for update` (a multi-row UPDATE alone takes its rows' locks in scan order, which
 * deadlocked against another transaction taking them one by one); the UPDATE then finds them
 * locked by its own transaction. Postgres re-reads a row it had to wait for, so `fits` sees its
 * latest values. Keys are ordered `collate "C"`: by code point, as the callers order them.
 */
export async function updateAllOrNone(db: Kysely<AnyDB>, u: AllOrNoneUpdate): Promise<number> {
  const table = sql.table(u.table);
  const key = sql.ref(u.key);
  const keys = sql.join(u.keys);
  const r = await sql`with locked as materialized (
      select * from ${table} where ${key} in (${keys})
      order by ${key} collate "C" for update
    ), fits as (
      select count(*) = ${u.keys.length} and coalesce(bool_and(${u.fits}), false) as ok
      from locked
    )
    update ${table} set ${u.set}
    from fits where fits.ok and ${key} in (${keys})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
