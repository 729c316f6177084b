import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { ReadMeasure } from "../../connectors/warehouse/read-cap.js";
import type { ColumnType } from "../../schema/table.js";
import { ANSWER_BOUNDS, truncationNotes, truncationOf } from "./answer-bounds.js";
import {
  countRows,
  readRows,
  stableOrder,
  type TypeHints,
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
  /**
   * The first row in key order, typed; null for an empty table or when not asked for. Read within
   * the answer bounds (answer-bounds.ts): a cell longer than CELL_MAX_BYTES is cut and marked.
   */
  example: Record<string, unknown> | null;
  /** Says which cells of the example were cut, when any were. */
  exampleNote?: string;
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
  o: { hints?: TypeHints | undefined; example?: boolean } = {},
): Promise<TableDescription | undefined> {
  if (!(await userTables(w)).includes(table)) return undefined;
  const info = await tableColumns(w, table, o.hints);
  const columns = info.map((c) => ({ name: c.name, type: c.type ?? null }));
  let example: Record<string, unknown> | null = null;
  let notes: string[] = [];
  if (o.example) {
    const names = info.map((c) => c.name);
    let measure: ReadMeasure | undefined;
    const [row] = await readRows(w, table, {
      columns: names,
      orderBy: await stableOrder(w, table, info),
      limit: 1,
      ...ANSWER_BOUNDS,
      onMeasure: (m) => (measure = m),
    });
    example = row ? Object.fromEntries(info.map((c) => [c.name, typedValue(row[c.name], c.type)])) : null;
    notes = truncationNotes(truncationOf(measure), undefined, "");
  }
  return {
    table,
    columns,
    key: await uniqueKey(w, table),
    rows: await countRows(w, table),
    example,
    ...(notes.length ? { exampleNote: notes.join("; ") } : {}),
  };
}
