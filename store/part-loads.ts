import { type Kysely, sql } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";

const now = () => new Date().toISOString();

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
