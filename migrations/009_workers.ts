import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * Runs spread over worker processes (Postgres, pg-boss). `skillsync_workers`: one row per worker
 * process, its heartbeat and the run it works for (`skillsync workers`). `skillsync_run_jobs`: one
 * row per attempt at a queued batch of a run's calls — which worker took it, what it counted and
 * met — so a run's counters add up over every worker, a re-delivered batch knows an earlier
 * attempt, and the run's coordinator knows when each batch is done. `skillsync_runs.invocation`:
 * the invocation whose batches the run wants made (a resumed run's earlier batches are left).
 */
export function workerTables(adapter: WarehouseAdapter): Migration {
  const time = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_workers")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("host", "text", (c) => c.notNull())
        .addColumn("pid", "integer", (c) => c.notNull())
        .addColumn("concurrency", "integer", (c) => c.notNull())
        .addColumn("run_id", "text")
        .addColumn("calls_in_flight", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("started_at", time, (c) => c.notNull())
        .addColumn("heartbeat_at", time, (c) => c.notNull())
        .addColumn("stopped_at", time)
        .execute();
      await db.schema
        .createTable("skillsync_run_jobs")
        .ifNotExists()
        .addColumn("job_id", "text", (c) => c.notNull())
        .addColumn("worker_id", "text", (c) => c.notNull())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("outcome", "text")
        .addColumn("started_at", time, (c) => c.notNull())
        .addColumn("finished_at", time)
        .addPrimaryKeyConstraint("skillsync_run_jobs_pk", ["job_id", "worker_id"])
        .execute();
      await db.schema
        .createIndex("skillsync_run_jobs_run")
        .ifNotExists()
        .on("skillsync_run_jobs")
        .columns(["run_id", "state"])
        .execute();
      await addColumnIfMissing(db, adapter, "skillsync_runs", "invocation", "text");
    },
  };
}
