import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { ReadMeasure } from "../../connectors/warehouse/read-cap.js";
import { ValidationError } from "../../core/errors.js";
import type { ColumnType } from "../../schema/table.js";
import { latestLoadOfSamePipeline } from "../../store/latest-load.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { changesView } from "../load/history-views.js";
import { userTables } from "./read-table.js";

/** Which changes to list: of one history table, since a date or a load, for some keys. */
export interface ChangesQuery {
  table: string;
  /**
   * `last`: the changes the table's latest load made; `YYYY-MM-DD[Thh:mm…]`: changes from then on;
   * a load id: changes by later loads.
   */
  since?: string | undefined;
  /** Key column → value (as text). */
  keys?: Record<string, string> | undefined;
}

/** One page of changes: which rows, which of the view's columns, and the bounds of the answer. */
export interface ChangesPageQuery extends ChangesQuery {
  limit: number;
  offset: number;
  /** Some of the view's columns, in this order (default: all of them). */
  columns?: string[] | undefined;
  maxBytes?: number | undefined;
  maxCellBytes?: number | undefined;
  onMeasure?: ((m: ReadMeasure) => void) | undefined;
}

export interface ChangesPage {
  /** The view's columns in its order (the key columns first), and those this page carries. */
  viewColumns: string[];
  columns: string[];
  rows: Record<string, unknown>[];
  /** Changes matching the query in all pages. */
  total: number;
  /** With `since: "last"`: the load whose changes these are (null: the table has no load yet). */
  loadId?: number | null;
}

/** The columns of a `<table>_changes` view after the key columns (history-views.ts), with their types. */
export const CHANGE_COLUMN_TYPES: Readonly<Record<string, ColumnType>> = {
  change: "text",
  column_name: "text",
  old_value: "text",
  new_value: "text",
  load_id: "integer",
  changed_at: "timestamp",
};
const CHANGE_COLUMNS = Object.keys(CHANGE_COLUMN_TYPES);

/** What a query asks of the view once checked: its columns, and the rows' bounds (where any). */
interface Scope {
  view: string;
  viewColumns: string[];
  keyColumns: string[];
  /** Changes made by exactly this load (`since: "last"`); null: the table has none, so no rows. */
  onlyLoad?: number | null;
  afterLoad?: number;
  fromDate?: string;
}

/**
 * What changed in a history table, per key and column, oldest first — read from its
 * `<table>_changes` view through the warehouse's read path (values bound, names checked against
 * the view's own columns).
 *
 * @example await readChanges(w, { table: "patent_legal_status", since: "12" })
 */
export async function readChanges(w: Warehouse, q: ChangesQuery): Promise<Record<string, unknown>[]> {
  const scope = await scopeOf(w, q);
  if (scope.onlyLoad === null) return [];
  const compiled = ordered(filtered(w, scope, q).selectAll(), scope).compile();
  return readWarehouse(w, compiled.sql, { params: compiled.parameters, source: `changes of ${q.table}` });
}

/**
 * One page of `readChanges` (the same rows in the same order), with the count of all of them: the
 * server's `GET /changes/:table` pages through it as `GET /tables/:name` pages a table.
 *
 * @example await readChangesPage(w, { table: "patent_legal_status", since: "last", limit: 1000, offset: 0 })
 */
export async function readChangesPage(w: Warehouse, q: ChangesPageQuery): Promise<ChangesPage> {
  const scope = await scopeOf(w, q);
  const columns = pageColumns(scope, q);
  const loadId = q.since?.trim() === "last" ? { loadId: scope.onlyLoad ?? null } : {};
  if (scope.onlyLoad === null)
    return { viewColumns: scope.viewColumns, columns, rows: [], total: 0, ...loadId };
  const page = ordered(filtered(w, scope, q).select(columns), scope)
    .limit(q.limit)
    .offset(q.offset)
    .compile();
  const rows = await readWarehouse(w, page.sql, {
    params: page.parameters,
    source: `changes of ${q.table}`,
    maxBytes: q.maxBytes,
    maxCellBytes: q.maxCellBytes,
    onMeasure: q.onMeasure,
  });
  const count = filtered(w, scope, q)
    .select((eb) => eb.fn.countAll().as("n"))
    .compile();
  const [n] = await readWarehouse(w, count.sql, {
    params: count.parameters,
    source: `changes of ${q.table}`,
  });
  return { viewColumns: scope.viewColumns, columns, rows, total: Number(n?.["n"] ?? 0), ...loadId };
}

/** The view of `q.table` (refused when it keeps no history), its columns, and what `since` means. */
async function scopeOf(w: Warehouse, q: ChangesQuery): Promise<Scope> {
  const view = changesView(q.table);
  const tables = await userTables(w);
  if (!tables.includes(view) || !tables.includes(q.table)) {
    const history = tables.filter((t) => t.endsWith("_changes")).map((t) => t.slice(0, -"_changes".length));
    throw new ValidationError("changes", [
      {
        path: ["table"],
        message: `"${q.table}" keeps no history (no view ${view}): a pipeline's table keeps versions with records.mode: history${history.length ? `; history tables here: ${history.join(", ")}` : ""}`,
      },
    ]);
  }
  const viewColumns = (await w.adapter.columns(w.db, view)).map((c) => c.name);
  const keyColumns = viewColumns.filter((c) => !CHANGE_COLUMNS.includes(c));
  for (const k of Object.keys(q.keys ?? {})) {
    if (!keyColumns.includes(k)) {
      throw new ValidationError("--key", [
        { path: [k], message: `is not a key column of ${q.table} (its key: ${keyColumns.join(", ")})` },
      ]);
    }
  }
  const scope: Scope = { view, viewColumns, keyColumns };
  if (q.since === undefined) return scope;
  if (q.since.trim() === "last") return { ...scope, onlyLoad: await latestLoad(w, q.table) };
  const since = sinceOf(q.since);
  return { ...scope, ...("load" in since ? { afterLoad: since.load } : { fromDate: since.date }) };
}

/**
 * The table's latest load: the greatest `load_id` in the history table itself (every version row
 * carries the load that wrote it), or a later load of the same pipeline that found every key
 * unchanged and so wrote no row (its changes: none). Null when no load has written the table.
 */
async function latestLoad(w: Warehouse, table: string): Promise<number | null> {
  const c = w.db
    .selectFrom(table)
    .select((eb) => eb.fn.max("load_id").as("latest"))
    .compile();
  const [r] = await readWarehouse(w, c.sql, { params: c.parameters, source: `latest load of ${table}` });
  const latest = r?.["latest"];
  if (latest === null || latest === undefined) return null;
  return latestLoadOfSamePipeline(w, Number(latest));
}

/** The view's rows within the scope and for the keys asked. */
function filtered(w: Warehouse, s: Scope, q: ChangesQuery) {
  let query = w.db.selectFrom(s.view);
  if (s.onlyLoad !== undefined && s.onlyLoad !== null) query = query.where("load_id", "=", s.onlyLoad);
  if (s.afterLoad !== undefined) query = query.where("load_id", ">", s.afterLoad);
  if (s.fromDate !== undefined) query = query.where("changed_at", ">=", s.fromDate);
  for (const [k, v] of Object.entries(q.keys ?? {})) query = query.where(k, "=", v);
  return query;
}

/** Oldest first, then by key and column: one row per key, column and version, so pages never overlap. */
function ordered<Q extends { orderBy(c: string): Q }>(query: Q, s: Scope): Q {
  let out = query.orderBy("changed_at");
  for (const k of s.keyColumns) out = out.orderBy(k);
  return out.orderBy("column_name");
}

/** The columns a page asked for, each one of the view's (the only names that reach the SQL). */
function pageColumns(s: Scope, q: ChangesPageQuery): string[] {
  if (!q.columns?.length) return s.viewColumns;
  const unknown = q.columns.filter((c) => !s.viewColumns.includes(c));
  if (unknown.length) {
    throw new ValidationError("query", [
      {
        path: ["columns"],
        message: `unknown column(s) ${unknown.map((c) => `"${c.slice(0, 64)}"`).join(", ")}; the changes of ${q.table} have ${s.viewColumns.join(", ")}`,
      },
    ]);
  }
  return [...new Set(q.columns)];
}

/**
 * `--since` as a load id (what later loads did) or a date (from then on, UTC); `last` is the
 * caller's to handle, and `lastMeans` says what it means there.
 */
export function sinceOf(
  since: string,
  lastMeans = "the changes of the table's latest load",
): { load: number } | { date: string } {
  if (/^\d+$/.test(since)) return { load: Number(since) };
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(since) && !Number.isNaN(Date.parse(since))) {
    return { date: new Date(since.length === 10 ? `${since}T00:00:00Z` : since).toISOString() };
  }
  throw new ValidationError("--since", [
    {
      path: [],
      message: `"${since.slice(0, 40)}" is neither a date (YYYY-MM-DD) nor a load id (a number: see \`skillsync runs <id>\`) nor "last" (${lastMeans})`,
    },
  ]);
}
