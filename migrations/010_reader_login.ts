import { type Kysely, type Migration, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { keepPrivate } from "../connectors/warehouse/postgres/reader.js";

/**
 * Where the warehouse keeps its reader role's generated password (Postgres only: SQLite has no
 * logins). Readable by the warehouse's owner alone: privileges granted by default in the schema
 * (a reader role made by hand from the docs, say) are taken back at once. Also made on its own
 * when a reader is first needed in a warehouse skillsync has not migrated (`skillsync sql` over
 * tables of the user's own).
 */
export async function createReaderLoginTable(db: Kysely<AnyDB>, adapter: WarehouseAdapter): Promise<void> {
  if (!adapter.loginRoles) return;
  await db.schema
    .createTable("skillsync_reader_login")
    .ifNotExists()
    .addColumn("role", "text", (c) => c.primaryKey())
    .addColumn("password", "text", (c) => c.notNull())
    .addColumn("created_at", sql.raw(adapter.sqlType("timestamp")), (c) => c.notNull())
    .execute();
  await keepPrivate(db, "skillsync_reader_login");
}

export function readerLoginTable(adapter: WarehouseAdapter): Migration {
  return { up: (db: Kysely<AnyDB>) => createReaderLoginTable(db, adapter) };
}
