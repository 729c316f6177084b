import type { Kysely, Migration } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Drops `skillsync_calls_hash` (request_hash): `skillsync_calls_hash_outcome` (request_hash,
 * outcome, 006) starts with the same column and serves every lookup by hash. The ledger gains a row
 * per call for good, so the second index cost a random B-tree insert on every reservation (about
 * one page of WAL a call, 4–6 % of a marketplace call's) and a hash's worth of disk per call, for
 * nothing.
 */
export function dropCallsHashIndex(): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema.dropIndex("skillsync_calls_hash").ifExists().execute();
    },
  };
}
