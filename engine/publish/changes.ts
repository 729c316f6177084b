import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { changesView } from "../load/history-views.js";
import { userTables } from "./read-table.js";

/** Which changes to list: of one history table, since a date or a load, for some keys. */
export interface ChangesQuery {
  table: string;
  /** `YYYY-MM-DD[Thh:mm…]`: changes from then on; a load id: changes by later loads. */
  since?: string | undefined;
  /** Key column → value (as text). */
  keys?: Record<string, string> | undefined;
}

/** The columns of a `<table>_changes` view after the key columns (history-views.ts). */
const CHANGE_COLUMNS = ["change", "column_name", "old_value", "new_value", "load_id", "changed_at"];

/**
 * What changed in a history table, per key and column, oldest first — read from its
 * `<table>_changes` view through the warehouse's read path (values bound, names checked against
 * the view's own columns).
 *
 * @example await readChanges(w, { table: "patent_legal_status", since: "12" })
 */
export async function readChanges(w: Warehouse, q: ChangesQuery): Promise<Record<string, unknown>[]> {
  const view = changesView(q.table);
  const tables = await userTables(w);
  if (!tables.includes(view)) {
    const history = tables.filter((t) => t.endsWith("_changes")).map((t) => t.slice(0, -"_changes".length));
    throw new ValidationError("changes", [
      {
        path: ["table"],
        message: `"${q.table}" keeps no history (no view ${view}): a pipeline's table keeps versions with records.mode: history${history.length ? `; history tables here: ${history.join(", ")}` : ""}`,
      },
    ]);
  }
  const keyColumns = (await w.adapter.columns(w.db, view))
    .map((c) => c.name)
    .filter((c) => !CHANGE_COLUMNS.includes(c));
  let query = w.db.selectFrom(view).selectAll();
  const since = q.since === undefined ? undefined : sinceOf(q.since);
  if (since?.load !== undefined) query = query.where("load_id", ">", since.load);
  if (since?.date !== undefined) query = query.where("changed_at", ">=", since.date);
  for (const [k, v] of Object.entries(q.keys ?? {})) {
    if (!keyColumns.includes(k)) {
      throw new ValidationError("--key", [
        { path: [k], message: `is not a key column of ${q.table} (its key: ${keyColumns.join(", ")})` },
      ]);
    }
    query = query.where(k, "=", v);
  }
  query = query.orderBy("changed_at");
  for (const k of keyColumns) query = query.orderBy(k);
  const compiled = query.orderBy("column_name").compile();
  return readWarehouse(w, compiled.sql, { params: compiled.parameters, source: `changes of ${q.table}` });
}

function sinceOf(since: string): { load?: number; date?: string } {
  if (/^\d+$/.test(since)) return { load: Number(since) };
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(since) && !Number.isNaN(Date.parse(since))) {
    return { date: new Date(since.length === 10 ? `${since}T00:00:00Z` : since).toISOString() };
  }
  throw new ValidationError("--since", [
    {
      path: [],
      message: `"${since}" is neither a date (YYYY-MM-DD) nor a load id (a number: see \`skillsync runs <id>\`)`,
    },
  ]);
}
