import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * The scheduler's state. `skillsync_schedule_ticks` holds one row per pipeline and tick: inserting
 * it is how a scheduler claims the tick, so schedulers on several machines run each tick once.
 * `skillsync_schedule_state` holds one row per scheduled pipeline: the run slot (which tick is
 * running, on which host, with a heartbeat), consecutive failures and the pause.
 */
export function scheduleTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await adapter
        .idColumn(db.schema.createTable("skillsync_schedule_ticks").ifNotExists())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("tick_at", ts, (c) => c.notNull())
        // fired | skipped | missed | caught-up
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("run_id", "text")
        // The run's outcome once it ended (succeeded, failed, ceiling, interrupted), or error.
        .addColumn("run_status", "text")
        .addColumn("note", "text")
        .addColumn("host", "text")
        .addColumn("pid", "integer")
        .addColumn("created_at", ts, (c) => c.notNull())
        .addColumn("finished_at", ts)
        .addUniqueConstraint("skillsync_schedule_ticks_once", ["pipeline", "tick_at"])
        .execute();

      await db.schema
        .createTable("skillsync_schedule_state")
        .ifNotExists()
        .addColumn("pipeline", "text", (c) => c.primaryKey())
        .addColumn("consecutive_failures", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("paused", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("paused_reason", "text")
        .addColumn("paused_at", ts)
        .addColumn("last_tick_at", ts)
        .addColumn("last_status", "text")
        .addColumn("last_run_id", "text")
        // Ticks up to this instant are accounted for; later ones found at start were missed.
        .addColumn("checked_at", ts)
        // The run slot: set while a tick's run is going, so the next tick is skipped, not stacked.
        .addColumn("running_tick_at", ts)
        .addColumn("running_host", "text")
        .addColumn("running_pid", "integer")
        .addColumn("heartbeat_at", ts)
        .addColumn("updated_at", ts, (c) => c.notNull())
        .execute();
    },
  };
}
