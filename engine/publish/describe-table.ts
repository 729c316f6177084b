import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { ColumnType } from "../../schema/table.js";
import {
  countRows,
  readRows,
  stableOrder,
  tableColumns,
  typedValue,
  uniqueKey,
  userTables,
} from "./read-table.js";

export interface TableDescription {
  table: string;
  columns: { name: string; type: ColumnType | null }[];
  /** The columns of the table's unique key (empty for views and tables without one). */
  key: string[];
  rows: number;
  /** The first row in key order, typed; null for an empty table or when not asked for. */
  example: Record<string, unknown> | null;
}

/**
 * What a reader needs to write SQL against a user table or view: columns with types, the key, the
 * row count and one example row. Returns undefined for a name that is not one of the warehouse's
 * user tables, so no SQL is ever built from a name that was not listed.
 *
 * @example await describeTable(w, "marketplace_search_results", { example: true })
 */
export async function describeTable(
  w: Warehouse,
  table: string,
  o: { hints?: Record<string, ColumnType> | undefined; example?: boolean } = {},
): Promise<TableDescription | undefined> {
  if (!(await userTables(w)).includes(table)) return undefined;
  const info = await tableColumns(w, table, o.hints);
  const columns = info.map((c) => ({ name: c.name, type: c.type ?? null }));
  let example: Record<string, unknown> | null = null;
  if (o.example) {
    const names = info.map((c) => c.name);
    const [row] = await readRows(w, table, {
      columns: names,
      orderBy: await stableOrder(w, table, info),
      limit: 1,
    });
    example = row ? Object.fromEntries(info.map((c) => [c.name, typedValue(row[c.name], c.type)])) : null;
  }
  return { table, columns, key: await uniqueKey(w, table), rows: await countRows(w, table), example };
}
