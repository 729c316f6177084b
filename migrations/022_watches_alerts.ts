import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Watches and alerts (docs/alerts.md).
 * - `skillsync_watches`: one row per watch: the table it watches and its settings as JSON. A
 *   webhook is kept as `env:NAME` or a hash, never as its URL (a URL carries a token).
 * - `skillsync_watch_keys`: the keys a watch names (none: it watches every key), as text.
 * - `skillsync_alerts`: one row per match, written in the load transaction that made the change.
 *   `alert_id` is made from (watch, key, column, load), unique, so a load resumed or run twice at
 *   once records each match once. `suppressed`: within the watch's cooldown for that key (kept, not sent).
 */
export function watchTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_watches")
        .ifNotExists()
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("table_name", "text", (c) => c.notNull())
        .addColumn("spec", "text", (c) => c.notNull())
        .addColumn("created_at", ts, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("skillsync_watch_keys")
        .ifNotExists()
        .addColumn("watch", "text", (c) => c.notNull())
        .addColumn("key_text", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("skillsync_watch_keys_pk", ["watch", "key_text"])
        .execute();
      await adapter
        .idColumn(db.schema.createTable("skillsync_alerts").ifNotExists())
        .addColumn("alert_id", "text", (c) => c.notNull().unique())
        .addColumn("watch", "text", (c) => c.notNull())
        .addColumn("table_name", "text", (c) => c.notNull())
        .addColumn("key_text", "text", (c) => c.notNull())
        .addColumn("column_name", "text")
        .addColumn("change", "text", (c) => c.notNull())
        .addColumn("old_value", "text")
        .addColumn("new_value", "text")
        .addColumn("load_id", "integer", (c) => c.notNull())
        .addColumn("run_id", "text")
        .addColumn("changed_at", ts, (c) => c.notNull())
        .addColumn("created_at", ts, (c) => c.notNull())
        .addColumn("suppressed", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex("skillsync_alerts_watch_key")
        .ifNotExists()
        .on("skillsync_alerts")
        .columns(["watch", "key_text", "changed_at"])
        .execute();
      await db.schema
        .createIndex("skillsync_alerts_load")
        .ifNotExists()
        .on("skillsync_alerts")
        .columns(["load_id"])
        .execute();
    },
  };
}
