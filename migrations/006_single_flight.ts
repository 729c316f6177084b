import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * Single flight across runs. Each reservation group looks for `reserved` ledger rows of its
 * request hashes held by other runs: the index on (request_hash, outcome) finds them without
 * reading every past call of a hash (a daily run asks the same requests every day).
 * `skillsync_runs.calls_shared` counts the answers a run took from another run's call.
 */
export function singleFlight(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createIndex("skillsync_calls_hash_outcome")
        .ifNotExists()
        .on("skillsync_calls")
        .columns(["request_hash", "outcome"])
        .execute();
      await addColumnIfMissing(db, adapter, "skillsync_runs", "calls_shared", "integer not null default 0");
    },
  };
}
