import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * `skillsync_loads`: one row per load — a pipeline's part of a run — with what it wrote: rows
 * inserted, and for `history` tables the versions it made, the keys it found unchanged and the
 * versions it closed. Rows of `append` and `history` tables carry its id (`load_id`), so a row says
 * which load it came from, and `skillsync changes --since LOAD` can name one.
 *
 * The name was taken by the per-answer load markers of report parts (001): they move to
 * `skillsync_part_loads`, unchanged.
 */
export function loadTables(adapter: WarehouseAdapter): Migration {
  const time = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      const markers = await adapter.columns(db, "skillsync_loads");
      if (markers.some((c) => c.name === "request_hash")) {
        await sql`alter table skillsync_loads rename to skillsync_part_loads`.execute(db);
      }
      await adapter
        .idColumn(db.schema.createTable("skillsync_loads").ifNotExists())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("pipeline", "text", (c) => c.notNull())
        .addColumn("started_at", time, (c) => c.notNull())
        .addColumn("finished_at", time)
        .addColumn("rows_inserted", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("versions_new", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("unchanged", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("closed", "integer", (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint("skillsync_loads_run_pipeline", ["run_id", "pipeline"])
        .execute();
    },
  };
}
