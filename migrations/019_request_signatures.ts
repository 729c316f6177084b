import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * `skillsync_request_signatures`: the signed requests `serve` has accepted, one row per signature
 * (docs/server.md#signing-requests), so a captured request is refused by every server of the
 * warehouse and after a restart, not only by the process that saw it. `signature` is the SHA-256 of
 * the signature, never the signature itself; `expires_at` is when its timestamp leaves the window,
 * after which the row is pruned (by `expires_at`, hence the index).
 */
export function requestSignatureTable(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_request_signatures")
        .ifNotExists()
        .addColumn("signature", "text", (c) => c.primaryKey())
        .addColumn("expires_at", ts, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("skillsync_request_signatures_expiry")
        .ifNotExists()
        .on("skillsync_request_signatures")
        .column("expires_at")
        .execute();
    },
  };
}
