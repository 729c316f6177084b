import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * What a run's answers showed about its mappings, kept with the run so `skillsync runs` and the
 * server show it: columns no record filled (`columns_empty`), record members no column reads
 * (`members_unmapped`), and the warnings that name them (`warnings`, a JSON list of lines).
 */
export function runQuality(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await addColumnIfMissing(db, adapter, "skillsync_runs", "columns_empty", "integer not null default 0");
      await addColumnIfMissing(
        db,
        adapter,
        "skillsync_runs",
        "members_unmapped",
        "integer not null default 0",
      );
      await addColumnIfMissing(db, adapter, "skillsync_runs", "warnings", "text");
    },
  };
}
