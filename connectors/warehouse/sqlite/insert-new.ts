import type SQLite from "better-sqlite3";
import type { NewRows, WarehouseAdapter } from "../adapter.js";
import { ident } from "../bulk.js";
import { prepared } from "./bulk.js";

/**
 * `WarehouseAdapter.insertNew` on SQLite: one statement, prepared once per connection and shape,
 * run per row on the caller's transaction (the one connection); a row that changed nothing was
 * there already.
 */
export function insertNew(
  database: SQLite.Database,
  adapter: Pick<WarehouseAdapter, "bind">,
  n: NewRows,
): unknown[] {
  const names = n.columns.map((c) => ident(c.name));
  const stmt = prepared(
    database,
    `insert into ${ident(n.table)} (${names.join(", ")}) values (${names.map(() => "?").join(", ")})
     on conflict (${ident(n.unique)}) do nothing`,
  );
  const at = n.columns.findIndex((c) => c.name === n.unique);
  const out: unknown[] = [];
  for (const row of n.rows) {
    const values = n.columns.map((c, j) => adapter.bind(row[j], c.type));
    if (stmt.run(values).changes > 0) out.push(row[at]);
  }
  return out;
}
