import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Date windows done (`window:` blocks of pipeline files): one row per window whose calls all
 * loaded, keyed by the window's identity (pipeline, params other than the window's own, input
 * values, first and last day, hashed). `asked_through` is the range end of the run that last asked
 * it, which decides whether a later run's lookback asks it again; `run_id` is that run. Days are
 * yyyy-mm-dd text on both databases.
 */
export function windowTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_windows")
        .ifNotExists()
        .addColumn("window_key", "text", (c) => c.primaryKey())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("window_start", "text", (c) => c.notNull())
        .addColumn("window_end", "text", (c) => c.notNull())
        .addColumn("asked_through", "text", (c) => c.notNull())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("calls", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("done_at", ts, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("skillsync_windows_pipeline")
        .ifNotExists()
        .on("skillsync_windows")
        .columns(["pipeline", "window_start"])
        .execute();
    },
  };
}
