import type { Kysely, Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * `skillsync_outbox.claimed_host` and `claimed_pid`: who holds an event's claim (set with the
 * lease, cleared when the delivery is recorded), so that a deliverer on the same host can take
 * over the claims of a process that is gone at once instead of after the lease
 * (docs/notifications.md). Null: not claimed, or claimed before this migration.
 */
export function outboxClaimer(adapter: WarehouseAdapter): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await addColumnIfMissing(db, adapter, "skillsync_outbox", "claimed_host", "text");
      await addColumnIfMissing(db, adapter, "skillsync_outbox", "claimed_pid", "integer");
    },
  };
}
