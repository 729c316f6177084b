import type { Warehouse } from "../../connectors/warehouse/open.js";
import { didYouMean, type Issue } from "../../core/errors.js";
import type { ColumnType } from "../../schema/table.js";
import { changesView } from "../load/history-views.js";
import { changeViewShape } from "../load/watches/view-watches.js";
import { CHILDREN_HASH, META_COLUMNS, VERSION_COLUMNS, VERSION_HASH } from "../normalize/mapping.js";
import { CHANGE_COLUMN_TYPES } from "../publish/changes.js";
import { tableColumns, userTables } from "../publish/read-table.js";

/** What a watch may look at in a history table: its key, its content columns (typed) and its child tables. */
export interface WatchedTable {
  name: string;
  key: string[];
  columns: Map<string, ColumnType | undefined>;
  children: string[];
}

const NOT_CONTENT = new Set<string>([
  ...META_COLUMNS.map((c) => c.name),
  ...VERSION_COLUMNS.map((c) => c.name),
  VERSION_HASH,
  CHILDREN_HASH,
]);

/**
 * The history table a watch names, as the warehouse has it: refused (an issue at `table`) unless
 * it keeps versions (`records.mode: history`, which comes with a `<table>_changes` view).
 */
export async function watchedTable(w: Warehouse, table: string): Promise<WatchedTable | Issue> {
  const tables = await userTables(w);
  const history = tables.filter((t) => t.endsWith("_changes")).map((t) => t.slice(0, -"_changes".length));
  if (tables.includes(table) && !tables.includes(changesView(table))) {
    const asView = await changeView(w, table);
    if (asView) return asView;
  }
  if (!tables.includes(table) || !tables.includes(changesView(table))) {
    const known = history.length
      ? `; history tables here: ${history.join(", ")}`
      : "; load one first (records.mode: history)";
    return {
      path: ["table"],
      message: `"${table}" is neither a table that keeps history nor a change view (load_id and previous_<column>, as marketplace_price_history)${didYouMean(table, history)}${known}`,
    };
  }
  const view = await tableColumns(w, changesView(table));
  const key = view.map((c) => c.name).filter((c) => !CHANGE_VIEW_COLUMNS.has(c));
  const columns = new Map(
    (await tableColumns(w, table))
      .filter((c) => !NOT_CONTENT.has(c.name) && !key.includes(c.name))
      .map((c) => [c.name, c.type] as const),
  );
  return { name: table, key, columns, children: await childTables(w, tables, table, key) };
}

/** A view that says per load what moved (marketplace_price_history): its pairs are its columns. */
async function changeView(w: Warehouse, name: string): Promise<WatchedTable | undefined> {
  const cols = await tableColumns(w, name);
  const shape = changeViewShape(cols.map((c) => c.name));
  if (!shape) return undefined;
  const columns = new Map(
    cols.filter((c) => shape.pairs.includes(c.name)).map((c) => [c.name, c.type] as const),
  );
  return { name, key: shape.key, columns, children: [] };
}

const CHANGE_VIEW_COLUMNS = new Set(Object.keys(CHANGE_COLUMN_TYPES));

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
  const candidates = tables.filter(
    (t) => t !== parent && tables.includes(`${t}_current`) && !tables.includes(changesView(t)),
  );
  const out: string[] = [];
  for (const t of candidates) {
    const cols = (await w.adapter.columns(w.db, t)).map((c) => c.name);
    if (key.every((k) => cols.includes(k)) && cols.includes("valid_from")) out.push(t);
  }
  return out;
}
