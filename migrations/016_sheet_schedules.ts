import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * `skillsync_sheet_schedules`: refreshes of a spreadsheet tab asked for from the add-on
 * (`POST /schedules`): a pipeline with its params and credit cap, a cron in a time zone, and the tab
 * its rows go to. Every `serve` and `schedule` on the warehouse fires them; their ticks and run slot
 * are kept in the scheduler's tables under the key `sheet:<id>`, so each tick runs once. A deleted
 * schedule keeps its row (`deleted_at`) so a scheduler that has not noticed yet still refuses its ticks.
 */
export function sheetScheduleTable(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  const json = sql.raw(adapter.sqlType("json"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_sheet_schedules")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("params", json, (c) => c.notNull())
        .addColumn("cron", "text", (c) => c.notNull())
        .addColumn("timezone", "text", (c) => c.notNull())
        .addColumn("max_credits", sql.raw(adapter.sqlType("number")), (c) => c.notNull())
        .addColumn("spreadsheet", "text", (c) => c.notNull())
        .addColumn("tab", "text", (c) => c.notNull())
        // replace: the tab holds the latest run's rows; append: a history table's rows go below.
        .addColumn("mode", "text", (c) => c.notNull())
        .addColumn("created_at", ts, (c) => c.notNull())
        .addColumn("deleted_at", ts)
        .execute();
    },
  };
}
