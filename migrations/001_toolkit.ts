import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/** The toolkit's own tables: runs, the call ledger, stored responses, load markers, rejects, budgets. */
export function toolkitTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  const json = sql.raw(adapter.sqlType("json"));
  const real = sql.raw(adapter.sqlType("number"));
  const blob = sql.raw(adapter.binaryType);
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_runs")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("run_key", "text", (c) => c.notNull())
        .addColumn("pipelines", json, (c) => c.notNull())
        .addColumn("params", json)
        .addColumn("trigger", "text", (c) => c.notNull().defaultTo("manual"))
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("stop_reason", "text")
        .addColumn("error", "text")
        .addColumn("pid", "integer")
        .addColumn("host", "text")
        .addColumn("started_at", ts, (c) => c.notNull())
        .addColumn("heartbeat_at", ts)
        .addColumn("finished_at", ts)
        .addColumn("calls_planned", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("calls_done", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("calls_cached", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("calls_failed", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("credits_spent", real, (c) => c.notNull().defaultTo(0))
        .addColumn("rows_written", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("rows_rejected", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex("skillsync_runs_key")
        .ifNotExists()
        .on("skillsync_runs")
        .columns(["run_key", "status"])
        .execute();

      await adapter
        .idColumn(db.schema.createTable("skillsync_calls").ifNotExists())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("skill", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("http_status", "integer")
        .addColumn("error_code", "text")
        .addColumn("error", "text")
        .addColumn("credits", real, (c) => c.notNull().defaultTo(0))
        .addColumn("trace_id", "text")
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("started_at", ts, (c) => c.notNull())
        .addColumn("finished_at", ts)
        .addColumn("elapsed_ms", "integer")
        .execute();
      await db.schema
        .createIndex("skillsync_calls_hash")
        .ifNotExists()
        .on("skillsync_calls")
        .column("request_hash")
        .execute();
      await db.schema
        .createIndex("skillsync_calls_run")
        .ifNotExists()
        .on("skillsync_calls")
        .columns(["run_id", "outcome"])
        .execute();

      await db.schema
        .createTable("skillsync_responses")
        .ifNotExists()
        .addColumn("request_hash", "text", (c) => c.primaryKey())
        .addColumn("skill", "text", (c) => c.notNull())
        .addColumn("request", json, (c) => c.notNull())
        .addColumn("body", blob, (c) => c.notNull())
        .addColumn("trace_id", "text")
        .addColumn("run_id", "text")
        .addColumn("received_at", ts, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("skillsync_loads")
        .ifNotExists()
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("rows", "integer", (c) => c.notNull())
        .addColumn("loaded_at", ts, (c) => c.notNull())
        .addPrimaryKeyConstraint("skillsync_loads_pk", ["run_id", "pipeline", "request_hash"])
        .execute();

      await adapter
        .idColumn(db.schema.createTable("skillsync_rejects").ifNotExists())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("table_name", "text", (c) => c.notNull())
        .addColumn("request_hash", "text")
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("record", json)
        .addColumn("created_at", ts, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("skillsync_budgets")
        .ifNotExists()
        .addColumn("scope", "text", (c) => c.primaryKey())
        .addColumn("limit_credits", real)
        .addColumn("reserved", real, (c) => c.notNull().defaultTo(0))
        .addColumn("updated_at", ts, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("skillsync_budget_settings")
        .ifNotExists()
        .addColumn("period", "text", (c) => c.primaryKey())
        .addColumn("limit_credits", real)
        .addColumn("updated_at", ts, (c) => c.notNull())
        .execute();
    },
  };
}
