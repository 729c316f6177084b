import type { Kysely, Migration } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * What the console (issue 48) reads by, over months of runs: runs newest first and by day
 * (`skillsync_runs_started`), a run's rejects and its events (`…_rejects_run`, `…_outbox_run`).
 * Each table gains a row per run or per reject, not per call: the ledger's hot path is untouched.
 */
export function consoleReads(): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      const indexes: [string, string, string[]][] = [
        ["skillsync_runs_started", "skillsync_runs", ["started_at", "id"]],
        ["skillsync_rejects_run", "skillsync_rejects", ["run_id"]],
        ["skillsync_outbox_run", "skillsync_outbox", ["run_id"]],
      ];
      for (const [name, table, columns] of indexes) {
        await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
      }
    },
  };
}
