import { sql } from "kysely";
import type { Warehouse } from "../connectors/warehouse/open.js";

/** What a run's ledger says it spent and loaded, over all its parts. */
export interface LedgerTotals {
  creditsSpent: number;
  rowsWritten: number;
  rowsRejected: number;
}

/** A run's credits as its ledger holds them (one indexed read: every run ends with it). */
export async function ledgerCredits(w: Warehouse, runId: string): Promise<number> {
  const r = await w.db
    .selectFrom("skillsync_calls")
    .select((eb) => eb.fn.coalesce(eb.fn.sum("credits"), eb.lit(0)).as("credits"))
    .where("run_id", "=", runId)
    .executeTakeFirst();
  return Number(r?.credits ?? 0);
}

/**
 * A run's credits and rows as its ledger holds them (a resumed run carries them): every call's credits (a failed call's are 0;
 * one cut off by a crash keeps its own, as it may have been billed), the rows each load wrote and
 * the records rejected. The counters a process keeps in memory reach the run's row only every few
 * seconds, so a crash would lose the last of them; these are written with the calls and loads.
 */
export async function ledgerTotals(w: Warehouse, runId: string): Promise<LedgerTotals> {
  const r = await sql<{ credits: unknown; rows: unknown; parts: unknown; rejected: unknown }>`select
      (select coalesce(sum(credits), 0) from skillsync_calls where run_id = ${runId}) as credits,
      (select coalesce(sum(loaded_rows), 0) from skillsync_calls where run_id = ${runId}) as rows,
      (select coalesce(sum(rows), 0) from skillsync_part_loads where run_id = ${runId}) as parts,
      (select count(*) from skillsync_rejects where run_id = ${runId}) as rejected`.execute(w.db);
  const row = r.rows[0]!;
  return {
    creditsSpent: Number(row.credits),
    rowsWritten: Number(row.rows) + Number(row.parts),
    rowsRejected: Number(row.rejected),
  };
}
