import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * A call's load is marked on its own ledger row: `skillsync_calls.loaded_rows` (null: its answer
 * was not loaded). The row is written in the load's transaction anyway (a paid call is finished
 * there, a reused answer gets its `cached` row there); a separate `skillsync_loads` row cost a
 * statement and a B-tree insert at a random place per answer (about a sixth of loading a 20-row
 * page into SQLite). `skillsync_loads` stays for report parts and for loads before this migration.
 */
export function callLoads(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      // SQLite has no `add column if not exists`, and its DDL is not transactional here: a
      // half-applied run may already have added the column.
      if (adapter.dialect === "postgres") {
        await sql`alter table skillsync_calls add column if not exists loaded_rows integer`.execute(db);
        return;
      }
      const cols = await sql<{ name: string }>`pragma table_info(skillsync_calls)`.execute(db);
      if (!cols.rows.some((c) => c.name === "loaded_rows")) {
        await sql`alter table skillsync_calls add column loaded_rows integer`.execute(db);
      }
    },
  };
}
