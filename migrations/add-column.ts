import { type Kysely, sql } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";

/**
 * Adds a column unless the table has it. SQLite has no `add column if not exists`, and its DDL is
 * not transactional here: a half-applied run of a migration may already have added the column.
 * `table`, `column` and `definition` are the migration's own text, never user input.
 */
export async function addColumnIfMissing(
  db: Kysely<AnyDB>,
  adapter: WarehouseAdapter,
  table: string,
  column: string,
  definition: string,
): Promise<void> {
  if (adapter.dialect === "sqlite") {
    const cols = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
    if (cols.rows.some((c) => c.name === column)) return;
  }
  const ifMissing = adapter.dialect === "postgres" ? "if not exists " : "";
  await sql.raw(`alter table ${table} add column ${ifMissing}${column} ${definition}`).execute(db);
}
