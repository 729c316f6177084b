import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * `skillsync_runs.credits_estimated`: 1 when some operation of the run was priced by the catalog's
 * guess (or not at all) rather than the user's price file, so its credits are an estimate of the
 * bill; 0 when every price came from a price file. Null for runs made before this migration: not
 * known, shown as estimated (docs/pricing.md).
 */
export function creditsEstimated(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await addColumnIfMissing(db, adapter, "skillsync_runs", "credits_estimated", "integer");
    },
  };
}
