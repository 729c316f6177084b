import type { Kysely, Migration } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * `skillsync_watch_keys_key` (key_text): a load asks which watches name the keys it changed. The
 * primary key (watch, key_text) answered that one (watch, key) pair at a time — 100 watches × 1,600
 * keys of a transaction, 160,000 probes — where this index takes one per key (issue 46's bench).
 */
export function watchKeysByKey(): Migration {
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createIndex("skillsync_watch_keys_key")
        .ifNotExists()
        .on("skillsync_watch_keys")
        .column("key_text")
        .execute();
    },
  };
}
