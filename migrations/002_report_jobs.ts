import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/** Job states in which a report may still be worked on; at most one such job per request. */
const ACTIVE_REPORT_STATES = ["creating", "pending", "downloading", "timeout"] as const;

/**
 * Asynchronous report jobs: one row per created report, written before the create call is sent
 * and updated as it is polled, downloaded and loaded, so a killed run resumes the same report.
 */
export function reportJobs(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  const json = sql.raw(adapter.sqlType("json"));
  const real = sql.raw(adapter.sqlType("number"));
  return {
    async up(db: Kysely<AnyDB>) {
      await adapter
        .idColumn(db.schema.createTable("skillsync_report_jobs").ifNotExists())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("pipeline_file", "text")
        .addColumn("skill", "text", (c) => c.notNull())
        .addColumn("connection_id", "integer")
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("request", json, (c) => c.notNull())
        .addColumn("params", json)
        .addColumn("report_id", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("provider_status", "text")
        .addColumn("parts", json)
        .addColumn("parts_downloaded", json)
        .addColumn("parts_loaded", json)
        .addColumn("rows_loaded", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("polls", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("credits", real, (c) => c.notNull().defaultTo(0))
        .addColumn("run_id", "text")
        .addColumn("error", "text")
        .addColumn("created_at", ts, (c) => c.notNull())
        .addColumn("updated_at", ts, (c) => c.notNull())
        .addColumn("polled_at", ts)
        .addColumn("finished_at", ts)
        .execute();
      await db.schema
        .createIndex("skillsync_report_jobs_report")
        .ifNotExists()
        .on("skillsync_report_jobs")
        .column("report_id")
        .execute();
      await db.schema
        .createIndex("skillsync_report_jobs_request")
        .ifNotExists()
        .on("skillsync_report_jobs")
        .column("request_hash")
        .execute();
      // Two processes cannot both create (and pay for) the same report: the second insert fails.
      const states = sql.join(ACTIVE_REPORT_STATES.map((s) => sql.lit(s)));
      await sql`create unique index if not exists skillsync_report_jobs_active
        on skillsync_report_jobs (request_hash) where status in (${states})`.execute(db);
    },
  };
}
