import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * Per-item reuse for batched, per-item-priced operations. Each item's part of an answer is stored
 * in `skillsync_responses` under the hash of the request asking for that item alone; while a
 * batch is in flight, `skillsync_item_flights` says which reserved call fetches each of its items
 * (one row per item hash, replaced by the next call that fetches it), so another run awaits the
 * item instead of paying for it again. `items_reused` and `credits_saved` count, per run, the
 * items loaded from the store or from another run's call and what they would have cost.
 */
export function itemReuse(adapter: WarehouseAdapter): Migration {
  const real = adapter.sqlType("number");
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_item_flights")
        .ifNotExists()
        .addColumn("item_hash", "text", (c) => c.primaryKey())
        .addColumn("call_id", "integer", (c) => c.notNull())
        .execute();
      await addColumnIfMissing(db, adapter, "skillsync_runs", "items_reused", "integer not null default 0");
      await addColumnIfMissing(db, adapter, "skillsync_runs", "credits_saved", `${real} not null default 0`);
    },
  };
}
