import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

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
      await addColumnIfMissing(db, adapter, "skillsync_calls", "loaded_rows", "integer");
    },
  };
}
