import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { addColumnIfMissing } from "./add-column.js";

/**
 * One account's rate limit, shared by every run and worker on the warehouse that uses the same key
 * (docs/rate-limits.md): `account` is a short hash of the API's URL and the key, never the key;
 * `state` the pacing row (connectors/skill-api/rate-row.ts) as JSON; `pace` its calls per second
 * for people reading the table (null: unpaced). And each run's count of requests refused with 429.
 */
export function rateLimitTables(adapter: WarehouseAdapter): Migration {
  const ts = sql.raw(adapter.sqlType("timestamp"));
  return {
    async up(db: Kysely<AnyDB>) {
      await db.schema
        .createTable("skillsync_rate_limits")
        .ifNotExists()
        .addColumn("account", "text", (c) => c.primaryKey())
        .addColumn("pace", sql.raw(adapter.sqlType("number")))
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("updated_at", ts, (c) => c.notNull())
        .execute();
      await addColumnIfMissing(db, adapter, "skillsync_runs", "rate_limited", "integer not null default 0");
    },
  };
}
