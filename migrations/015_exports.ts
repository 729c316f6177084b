import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * `skillsync_exports`: the last export of each (file, source) — `target` the file's absolute path,
 * `source` what was exported (`table NAME` or `sql SHA256` of the query text) — with the highest
 * load id it covered (`through_load`, null when the warehouse had no load yet), so that
 * `skillsync export --since-last` writes only rows of later loads (docs/export.md).
 */
export function exportTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_exports")
        .ifNotExists()
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("format", "text", (c) => c.notNull())
        .addColumn("through_load", "integer")
        .addColumn("rows_written", "integer", (c) => c.notNull())
        .addColumn("exported_at", ts, (c) => c.notNull())
        .addPrimaryKeyConstraint("skillsync_exports_pk", ["target", "source"])
        .execute();
    },
  };
}
