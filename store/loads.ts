import { type Kysely, sql } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";

/** What one load wrote, as `skillsync runs <id>` shows it. */
export interface LoadRow {
  id: number;
  runId: string;
  pipeline: string;
  startedAt: string;
  finishedAt: string | null;
  rowsInserted: number;
  versionsNew: number;
  unchanged: number;
  closed: number;
}

/** What one load transaction adds to its load's counts. */
export interface LoadCounts {
  rowsInserted: number;
  versionsNew: number;
  unchanged: number;
  closed: number;
}

const stamp = () => new Date().toISOString();

/**
 * The id of a run's load of a pipeline, made on first use. Every process of the run (a resumed
 * run, each worker) gets the same one: the row is unique on (run, pipeline).
 */
export async function openLoad(w: Warehouse, runId: string, pipeline: string): Promise<number> {
  await w.db
    .insertInto("skillsync_loads")
    .values({ run_id: runId, pipeline, started_at: stamp() })
    .onConflict((oc) => oc.columns(["run_id", "pipeline"]).doNothing())
    .execute();
  const row = await w.db
    .selectFrom("skillsync_loads")
    .select("id")
    .where("run_id", "=", runId)
    .where("pipeline", "=", pipeline)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Adds a load transaction's counts to its load, inside that transaction (so a crash loses neither). */
export async function countLoad(db: Kysely<AnyDB>, loadId: number, c: LoadCounts): Promise<void> {
  if (!c.rowsInserted && !c.versionsNew && !c.unchanged && !c.closed) return;
  await db
    .updateTable("skillsync_loads")
    .set({
      rows_inserted: sql`rows_inserted + ${c.rowsInserted}`,
      versions_new: sql`versions_new + ${c.versionsNew}`,
      unchanged: sql`unchanged + ${c.unchanged}`,
      closed: sql`closed + ${c.closed}`,
    })
    .where("id", "=", loadId)
    .execute();
}

/** Marks a load finished (its pipeline's part of the run ended, however it ended). */
export async function finishLoad(w: Warehouse, loadId: number): Promise<void> {
  await w.db.updateTable("skillsync_loads").set({ finished_at: stamp() }).where("id", "=", loadId).execute();
}

/** A run's loads, in the order they started. */
export async function loadsOfRun(w: Warehouse, runId: string): Promise<LoadRow[]> {
  const rows = await w.db
    .selectFrom("skillsync_loads")
    .selectAll()
    .where("run_id", "=", runId)
    .orderBy("id")
    .execute();
  return rows.map(loadRow);
}

function loadRow(r: Record<string, unknown>): LoadRow {
  const time = (v: unknown) => (v instanceof Date ? v.toISOString() : v == null ? null : String(v));
  return {
    id: Number(r["id"]),
    runId: String(r["run_id"]),
    pipeline: String(r["pipeline"]),
    startedAt: time(r["started_at"]) ?? "",
    finishedAt: time(r["finished_at"]),
    rowsInserted: Number(r["rows_inserted"]),
    versionsNew: Number(r["versions_new"]),
    unchanged: Number(r["unchanged"]),
    closed: Number(r["closed"]),
  };
}
