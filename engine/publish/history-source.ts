import type { Warehouse } from "../../connectors/warehouse/open.js";
import { NOT_CONTENT } from "../load/history.js";
import { changesView } from "../load/history-views.js";
import { changeViewShape } from "../load/watches/view-watches.js";
import { CHANGE_COLUMN_TYPES } from "./changes.js";
import { type ColumnInfo, tableColumns, userTables } from "./read-table.js";

/**
 * A table whose changes can be watched or shown, as the warehouse's own catalog has it: a history
 * table (`records.mode: history`, with its `<table>_changes` view) or a change view (`load_id` and
 * `previous_<column>` beside `<column>`, as `marketplace_price_history`). Every name in it comes
 * from the catalog, never from a request.
 */
export interface HistorySource {
  table: string;
  kind: "history" | "view";
  keyColumns: string[];
  /** What a version holds (a history table's content columns, a change view's paired columns), typed where known. */
  columns: ColumnInfo[];
  /** A history table's child tables (key and `valid_from` of its versions); none for a view. */
  children: string[];
  /** The column that says when a row's values became true: `valid_from`, or a view's `…_at` (null: none). */
  at: string | null;
  /** A change view's column that is null on a key's first row (`previous_load_id`, else the first pair's `previous_…`). */
  firstMark: string | null;
}

/**
 * `timeColumns`: keep a history table's `…_at` columns among its content columns. The catalog does
 * not say which columns only tell when a row was seen (`$observedAt`, no version made for them), so
 * the console guesses from the name and leaves every `…_at` out of its timelines; watches keep them,
 * since an `…_at` the data brings (a `published_at`) is content whose changes the `_changes` view
 * lists, and a watch file naming one was accepted before.
 */
type HistorySourceOptions = { timeColumns?: boolean };

const CHANGE_COLUMNS = new Set(Object.keys(CHANGE_COLUMN_TYPES));

/**
 * The history table or change view named `table`, or undefined when the warehouse has no such
 * one: an unknown or hostile name is compared with the catalog's names (`known`, else read) and
 * goes no further.
 *
 * @example await historySource(w, "patent_legal_status") // { kind: "history", keyColumns: ["publication_number"], … }
 */
export async function historySource(
  w: Warehouse,
  table: string,
  known?: readonly string[],
  o: HistorySourceOptions = {},
): Promise<HistorySource | undefined> {
  const tables = known ?? (await userTables(w));
  if (!tables.includes(table) || table.endsWith("_changes") || table.endsWith("_current")) return undefined;
  if (tables.includes(changesView(table))) return historyTable(w, tables, table, o);
  const columns = await tableColumns(w, table);
  const shape = changeViewShape(columns.map((c) => c.name));
  if (!shape) return undefined;
  return {
    table,
    kind: "view",
    keyColumns: shape.key,
    columns: columns.filter((c) => shape.pairs.includes(c.name)),
    children: [],
    at: columns.find((c) => c.name.endsWith("_at"))?.name ?? null,
    firstMark: columns.some((c) => c.name === "previous_load_id")
      ? "previous_load_id"
      : `previous_${shape.pairs[0]}`,
  };
}

/** A history table: its key is what its `_changes` view has beside the change's own columns. */
async function historyTable(
  w: Warehouse,
  tables: readonly string[],
  table: string,
  o: HistorySourceOptions,
): Promise<HistorySource> {
  const keyColumns = (await w.adapter.columns(w.db, changesView(table)))
    .map((c) => c.name)
    .filter((c) => !CHANGE_COLUMNS.has(c));
  const columns = (await tableColumns(w, table)).filter(
    (c) =>
      !NOT_CONTENT.has(c.name) && !keyColumns.includes(c.name) && (o.timeColumns || !c.name.endsWith("_at")),
  );
  return {
    table,
    kind: "history",
    keyColumns,
    columns,
    children: await childTables(w, tables, table, keyColumns),
    at: "valid_from",
    firstMark: null,
  };
}

/**
 * The tables whose rows may be a history table's children: versioned (a `_current` view), not
 * history tables themselves, carrying its key. Loose by design: a name that is not really a child
 * is accepted and simply never changes.
 */
async function childTables(
  w: Warehouse,
  tables: readonly string[],
  parent: string,
  key: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const t of tables) {
    if (t === parent || !tables.includes(`${t}_current`) || tables.includes(changesView(t))) continue;
    const cols = (await w.adapter.columns(w.db, t)).map((c) => c.name);
    if (key.every((k) => cols.includes(k)) && cols.includes("valid_from")) out.push(t);
  }
  return out;
}
