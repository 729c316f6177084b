import { type Kysely, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Adds a column unless the table has it: with `add column if not exists` where the database has
 * it, else after looking (a half-applied run of a migration may already have added the column).
 * `table`, `column` and `definition` are the migration's own text, never user input.
 */
export async function addColumnIfMissing(
  db: Kysely<AnyDB>,
  adapter: WarehouseAdapter,
  table: string,
  column: string,
  definition: string,
): Promise<void> {
  if (!adapter.addColumnIfNotExists) {
    const cols = await adapter.columns(db, table);
    if (cols.some((c) => c.name === column)) return;
  }
  const ifMissing = adapter.addColumnIfNotExists ? "if not exists " : "";
  await sql.raw(`alter table ${table} add column ${ifMissing}${column} ${definition}`).execute(db);
}
