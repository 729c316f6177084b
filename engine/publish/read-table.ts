import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { ReadMeasure } from "../../connectors/warehouse/read-cap.js";
import { listTables } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import type { ColumnType } from "../../schema/table.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { changesView } from "../load/history-views.js";
import { compileMapping } from "../normalize/mapping.js";

export interface ColumnInfo {
  name: string;
  /** The pipeline type when it can be told from the database (or from a known pipeline). */
  type: ColumnType | undefined;
}

/** Whether a table is the toolkit's own (its ledger, store and bookkeeping): not shown to agents. */
export const isToolkitTable = (t: string) => t.startsWith("skillsync_") || t.startsWith("kysely_");

/** User tables and views (the toolkit's own skillsync_* tables are not for reading through here). */
export async function userTables(w: Warehouse): Promise<string[]> {
  return (await listTables(w)).filter((t) => !isToolkitTable(t));
}

/**
 * The toolkit's own tables a statement would read, directly or through a view, as the database
 * plans it (through the read path). None for an EXPLAIN, which returns no rows of any table, nor
 * for a statement the database cannot plan: running it says why.
 */
export async function toolkitTablesRead(w: Warehouse, text: string): Promise<string[]> {
  if (/^\s*explain\b/i.test(text)) return [];
  try {
    return (await w.adapter.tablesRead(text, (s) => readWarehouse(w, s))).filter(isToolkitTable);
  } catch (err) {
    if (err instanceof ValidationError) return [];
    throw err;
  }
}

/**
 * Pipeline column types: one table's (column → type), or every table's (table → column → type), with
 * which a view's column also takes the type of the table column it shows (where the database says
 * which: SQLite, whose stored types cannot tell a date or a boolean).
 */
export type TypeHints = Record<string, ColumnType> | ReadonlyMap<string, Record<string, ColumnType>>;

/**
 * The columns of a table or view in their order, typed where the database says. Where stored types
 * are not exact (SQLite keeps booleans as integers and JSON as text), `hints` from the pipelines
 * that declare the table (or the table a view's column shows) come first; elsewhere they only fill
 * in types the database does not tell.
 *
 * @example await tableColumns(w, "marketplace_search_results") // [{ name: "keyword", type: "text" }, …]
 */
export async function tableColumns(
  w: Warehouse,
  table: string,
  hints: TypeHints = {},
): Promise<ColumnInfo[]> {
  const exact = w.adapter.exactColumnTypes;
  const every = hints instanceof Map ? hints : undefined;
  const own = (every ? every.get(table) : (hints as Record<string, ColumnType>)) ?? {};
  return (await w.adapter.columns(w.db, table)).map((c) => {
    const hint = own[c.name] ?? (c.origin ? every?.get(c.origin.table)?.[c.origin.column] : undefined);
    return { name: c.name, type: exact ? (c.type ?? hint) : (hint ?? c.type) };
  });
}

/** A user table as GET /tables and the MCP tool list_tables show it. */
export interface TableSummary {
  name: string;
  rows: number;
  columns: ColumnInfo[];
  /** It keeps history: `<table>_changes` (GET /changes/:name) lists what changed in it. */
  history: boolean;
}

/** Every user table and view, with its rows, its columns (typed as in `tableColumns`) and whether it keeps history. */
export async function tableSummaries(
  w: Warehouse,
  hints: Map<string, Record<string, ColumnType>>,
): Promise<TableSummary[]> {
  const names = await userTables(w);
  const out: TableSummary[] = [];
  for (const name of names) {
    const columns = await tableColumns(w, name, hints);
    out.push({ name, rows: await countRows(w, name), columns, history: names.includes(changesView(name)) });
  }
  return out;
}

/**
 * The columns of the table's unique index (the key `ensureTable` makes: `<table>_key` in a table
 * made before keys, else its primary key, first), in
 * index order; empty for views and tables without one. Expression and partial indexes do not count.
 */
export async function uniqueKey(w: Warehouse, table: string): Promise<string[]> {
  const rows = await w.adapter.uniqueIndexColumns(w.db, table, `${table}_key`);
  const first = rows[0]?.index;
  const columns = rows.filter((x) => x.index === first).map((x) => x.column);
  return columns.every((c): c is string => typeof c === "string") ? columns : [];
}

/**
 * An order that makes pages of a table stable: its unique key when it has one (the database walks
 * the key's index instead of sorting the table: a page deep in 200 000 rows 107 → 10 ms in SQLite,
 * 88 → 62 ms in Postgres), else every column but JSON ones (Postgres's json cannot be ordered).
 * Rows whose key has a NULL (never written by skillsync, which rejects them) keep the index's order.
 */
export async function stableOrder(
  w: Warehouse,
  table: string,
  info: readonly ColumnInfo[],
): Promise<string[]> {
  const key = await uniqueKey(w, table);
  return key.length ? key : info.filter((c) => c.type !== "json").map((c) => c.name);
}

export interface ReadOptions {
  columns: string[];
  limit?: number | undefined;
  offset?: number | undefined;
  /** Only the rows one run wrote (tables a pipeline loads carry run_id). */
  runId?: string | undefined;
  /** Columns to sort by (default: all read; `stableOrder` gives the one pages need). */
  orderBy?: string[] | undefined;
  /** Integers past 2^53 as BigInt (Sheets pushes send them as text with every digit). */
  exactIntegers?: boolean | undefined;
  /** Bounds in bytes (answer-bounds.ts: the server's pages, MCP's example row); `onMeasure` hears what was cut. */
  maxBytes?: number | undefined;
  maxCellBytes?: number | undefined;
  onMeasure?: ((m: ReadMeasure) => void) | undefined;
}

/**
 * Rows of a table, in the order given (`stableOrder`, so that pages do not overlap). The table
 * and column names must come from `userTables`/`tableColumns`, never from user text: Kysely quotes
 * them, but only known names are ever passed.
 */
export async function readRows(
  w: Warehouse,
  table: string,
  o: ReadOptions,
): Promise<Record<string, unknown>[]> {
  // Through the one read-only path: a view can be any SELECT (an endless one included).
  const c = readQuery(w, table, o).compile();
  return readWarehouse(w, c.sql, {
    params: c.parameters,
    source: `table ${table}`,
    exactIntegers: o.exactIntegers === true,
    maxBytes: o.maxBytes,
    maxCellBytes: o.maxCellBytes,
    onMeasure: o.onMeasure,
  });
}

function readQuery(w: Warehouse, table: string, o: ReadOptions) {
  let q = w.db.selectFrom(table).select(o.columns);
  if (o.runId !== undefined) q = q.where("run_id", "=", o.runId);
  for (const c of o.orderBy ?? o.columns) q = q.orderBy(c);
  if (o.limit !== undefined) q = q.limit(o.limit);
  if (o.offset) q = q.offset(o.offset);
  return q;
}

export async function countRows(w: Warehouse, table: string, runId?: string): Promise<number> {
  let q = w.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n"));
  if (runId !== undefined) q = q.where("run_id", "=", runId);
  const c = q.compile();
  const [r] = await readWarehouse(w, c.sql, { params: c.parameters, source: `table ${table}` });
  return Number(r?.["n"] ?? 0);
}

/** A value as JSON should carry it: SQLite's 0/1 booleans as booleans, JSON text parsed. */
export function typedValue(value: unknown, type: ColumnType | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (type === "boolean" && typeof value === "number") return value === 1;
  if (type === "json" && typeof value === "string") {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/** Column types of every table (and view column) the pipelines declare: table → column → type. */
export function pipelineColumnTypes(pipelines: LoadedPipeline[]): Map<string, Record<string, ColumnType>> {
  const out = new Map<string, Record<string, ColumnType>>();
  const add = (table: string, types: [string, ColumnType][]) =>
    out.set(table, { ...out.get(table), ...Object.fromEntries(types) });
  for (const p of pipelines) {
    const m = compileMapping(p.records);
    for (const t of [m.table, ...m.children])
      add(
        t.name,
        t.columns.map((c) => [c.name, c.type]),
      );
    for (const v of p.views) {
      add(
        v.name,
        Object.entries(v.columns).flatMap(([name, spec]): [string, ColumnType][] => {
          const type = typeof spec === "string" ? spec : spec.type;
          return type ? [[name, type]] : [];
        }),
      );
    }
  }
  return out;
}
