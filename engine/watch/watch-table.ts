import type { Warehouse } from "../../connectors/warehouse/open.js";
import { didYouMean, type Issue } from "../../core/errors.js";
import type { ColumnType } from "../../schema/table.js";
import { historySource } from "../publish/history-source.js";
import { userTables } from "../publish/read-table.js";

/** What a watch may look at in a history table: its key, its content columns (typed) and its child tables. */
export interface WatchedTable {
  name: string;
  key: string[];
  columns: Map<string, ColumnType | undefined>;
  children: string[];
}

/**
 * The history table a watch names, as the warehouse has it: refused (an issue at `table`) unless
 * it keeps versions (`records.mode: history`, which comes with a `<table>_changes` view) or is a
 * change view.
 */
export async function watchedTable(w: Warehouse, table: string): Promise<WatchedTable | Issue> {
  const tables = await userTables(w);
  // Watches keep `…_at` columns (see historySource's `timeColumns`): a watch file naming one stays valid.
  const s = await historySource(w, table, tables, { timeColumns: true });
  if (s)
    return {
      name: s.table,
      key: s.keyColumns,
      columns: new Map(s.columns.map((c) => [c.name, c.type] as const)),
      children: s.children,
    };
  const history = tables.filter((t) => t.endsWith("_changes")).map((t) => t.slice(0, -"_changes".length));
  const known = history.length
    ? `; history tables here: ${history.join(", ")}`
    : "; load one first (records.mode: history)";
  return {
    path: ["table"],
    message: `"${table}" is neither a table that keeps history nor a change view (load_id and previous_<column>, as marketplace_price_history)${didYouMean(table, history)}${known}`,
  };
}
