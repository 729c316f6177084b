import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * The notification outbox (docs/notifications.md): one row per event and webhook. `id`, numbered
 * by the database, orders a run's events; `event_id` is the event's stable id (what receivers
 * deduplicate on), unique per `target` so two processes deciding the same event write it once.
 * `target` is a short hash of the webhook URL, never the URL: a webhook URL carries a token. A
 * deliverer claims a due row by moving `next_attempt_at` ahead (a lease) with a compare-and-set
 * on `attempts`, then marks it delivered or sets its next attempt.
 */
export function outboxTable(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await adapter
        .idColumn(db.schema.createTable("skillsync_outbox").ifNotExists())
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("run_id", "text")
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("created_at", ts, (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", ts, (c) => c.notNull())
        .addColumn("delivered_at", ts)
        .addColumn("last_error", "text")
        .execute();
      await db.schema
        .createIndex("skillsync_outbox_event")
        .ifNotExists()
        .unique()
        .on("skillsync_outbox")
        .columns(["event_id", "target"])
        .execute();
      await db.schema
        .createIndex("skillsync_outbox_due")
        .ifNotExists()
        .on("skillsync_outbox")
        .columns(["target", "delivered_at", "next_attempt_at"])
        .execute();
    },
  };
}
