import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ensureTable } from "../../connectors/warehouse/tables.js";
import type { RecordsSpec } from "../../schema/pipeline.js";
import type { ColumnDef, ColumnType, TableDef } from "../../schema/table.js";
import { snakeCase, toColumn } from "./convert.js";
import type { Normalised, Row } from "./row.js";
import { TOOLKIT_COLUMNS } from "./table-comments.js";
import { isDate, isTimestamp } from "./text-types.js";

/**
 * `records.inferColumns`: columns from the data. Declared columns stay compiled once (mapping.ts);
 * every other member first lands in the table's extra JSON (the staging area), then moves into a
 * column of its own: scalars into typed columns, objects and arrays into JSON columns. A member
 * seen for the first time adds a column (ALTER TABLE ADD COLUMN); nothing is dropped or retyped.
 * A value that does not fit its column's type (text in a number column) stays in extra; so does a
 * member whose column name is taken. A member that is only ever null gets no column yet.
 */

/** Extra column name used when a pipeline says `extra: false`: staged members are not written. */
export const INFER_STAGING = "__inferred_members";

interface TableSet {
  table: TableDef;
  children: TableDef[];
}

export interface ColumnInference {
  /** Adds the columns a response brings (outside any transaction), moves values into them, returns the tables to write. */
  apply(w: Warehouse, n: Normalised): Promise<TableSet>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The column type a JSON value suggests; undefined for null (no information). */
function valueType(v: unknown): ColumnType | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isSafeInteger(v) ? "integer" : "number";
  if (typeof v === "string") {
    if (isDate(v)) return "date";
    if (isTimestamp(v, "required")) return "timestamp";
    return "text";
  }
  return "json";
}

/** The narrowest type holding both: integer+number → number, date+timestamp → timestamp, any+json → json, else text. */
function widen(a: ColumnType | undefined, b: ColumnType): ColumnType {
  if (a === undefined || a === b) return b;
  const pair = new Set([a, b]);
  if (pair.has("integer") && pair.has("number")) return "number";
  if (pair.has("date") && pair.has("timestamp")) return "timestamp";
  if (pair.has("json")) return "json";
  return "text";
}

/** `searchVolume` → `search_volume`; undefined when no valid identifier comes of it. */
function inferredColumnName(member: string): string | undefined {
  const snake = snakeCase(member);
  const name = /^[0-9]/.test(snake) ? `_${snake}` : snake;
  return IDENTIFIER.test(name) && !name.startsWith("skillsync_") ? name : undefined;
}

const ACCEPTS: Record<ColumnType, ReadonlySet<ColumnType>> = {
  text: new Set(["text", "integer", "number", "boolean", "date", "timestamp", "json"]),
  json: new Set(["text", "integer", "number", "boolean", "date", "timestamp", "json"]),
  integer: new Set(["integer"]),
  number: new Set(["integer", "number"]),
  decimal: new Set(["integer", "number", "decimal"]),
  boolean: new Set(["boolean"]),
  date: new Set(["date"]),
  timestamp: new Set(["date", "timestamp"]),
};

/** A value for a column of `type`, or `undefined` when it does not fit (it then stays in extra). */
function fitValue(
  value: unknown,
  type: ColumnType,
  booleansAsIntegers: boolean,
): { value: unknown } | undefined {
  const vt = valueType(value);
  if (vt === undefined) return { value: null };
  // SQLite stores booleans as 0/1 integers, and its column reads back as integer.
  if (vt === "boolean" && type === "integer" && booleansAsIntegers) return { value: value ? 1 : 0 };
  if (!ACCEPTS[type].has(vt)) return undefined;
  return { value: type === "json" ? value : toColumn(value, type) };
}

/**
 * What a text column holds where column types are not exact (SQLite: date, timestamp and JSON are
 * all text there), judged by one stored value.
 */
async function storedTextType(w: Warehouse, table: string, column: string): Promise<ColumnType> {
  const r = await sql<{ v: unknown }>`
    select ${sql.ref(column)} as v from ${sql.table(table)} where ${sql.ref(column)} is not null limit 1`.execute(
    w.db,
  );
  const v = r.rows[0]?.v;
  if (typeof v !== "string") return "text";
  if (/^[[{"]/.test(v)) {
    try {
      JSON.parse(v);
      return "json";
    } catch {
      return "text";
    }
  }
  const t = valueType(v);
  return t === "date" || t === "timestamp" ? t : "text";
}

/** The columns a table has now, typed as the warehouse stores them (SQLite: integer, real or text). */
export async function columnTypes(w: Warehouse, table: string): Promise<Map<string, ColumnType>> {
  return new Map((await w.adapter.columns(w.db, table)).map((c) => [c.name, c.type ?? "text"]));
}

/** Key columns a generic pipeline names but does not declare: text columns read from the member of the same name. */
export function declareKeyColumns(spec: RecordsSpec): RecordsSpec {
  const missing = (spec.key ?? []).filter((k) => !(k in spec.columns));
  if (!missing.length) return spec;
  return {
    ...spec,
    columns: { ...spec.columns, ...Object.fromEntries(missing.map((k) => [k, "text" as const])) },
  };
}

interface TableState {
  def: TableDef;
  staging: string;
  reserved: Set<string>;
}

function stagedMembers(row: Row, staging: string): [string, unknown][] {
  const staged = row[staging];
  return staged && typeof staged === "object" && !Array.isArray(staged) ? Object.entries(staged) : [];
}

/**
 * Column inference for a compiled mapping: `tables` are the declared definitions, each with the
 * name of the JSON column its unconsumed members are staged in. Calls are serialised, so two
 * responses of one run never race to add the same column.
 *
 * @example
 * const inf = createInference([{ def: mapping.table, staging: "extra" }]);
 * const { table } = await inf.apply(warehouse, mapping.normalise(data, ctx)); // table.columns: declared + inferred
 */
export function createInference(tables: { def: TableDef; staging: string }[]): ColumnInference {
  const states: TableState[] = tables.map((t) => ({
    ...t,
    reserved: new Set([...t.def.columns.map((c) => c.name), t.staging]),
  }));
  const known = new WeakMap<Warehouse, Map<string, Map<string, ColumnType>>>();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    apply(w, n) {
      const run = queue.then(async () => {
        const cache = known.get(w) ?? new Map<string, Map<string, ColumnType>>();
        known.set(w, cache);
        const defs: TableDef[] = [];
        for (const s of states) defs.push(await applyTable(w, s, n.rows.get(s.def.name) ?? [], cache));
        return { table: defs[0]!, children: defs.slice(1) };
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** One table's inferred columns: added where the rows bring new ones, then filled from the staged members. */
async function applyTable(
  w: Warehouse,
  s: TableState,
  rows: Row[],
  cache: Map<string, Map<string, ColumnType>>,
): Promise<TableDef> {
  let cols = cache.get(s.def.name);
  if (!cols) {
    cols = await inferredColumns(w, s);
    cache.set(s.def.name, cols);
  }
  await addColumns(w, s, cols, newColumns(s, rows, cols));
  for (const row of rows) moveStaged(w, s, cols, row);
  return { ...s.def, columns: [...s.def.columns, ...[...cols].map(([name, type]) => ({ name, type }))] };
}

/** The columns inference added to the table before (those it did not declare), typed. */
async function inferredColumns(w: Warehouse, s: TableState): Promise<Map<string, ColumnType>> {
  const have = await columnTypes(w, s.def.name);
  const cols = new Map<string, ColumnType>();
  for (const [c, type] of have) {
    if (s.reserved.has(c)) continue;
    cols.set(
      c,
      type === "text" && !w.adapter.exactColumnTypes ? await storedTextType(w, s.def.name, c) : type,
    );
  }
  return cols;
}

/** Staged members that have no column yet, each typed to hold all of its values in these rows. */
function newColumns(s: TableState, rows: Row[], cols: Map<string, ColumnType>): Map<string, ColumnType> {
  const added = new Map<string, ColumnType>();
  for (const row of rows) {
    for (const [member, value] of stagedMembers(row, s.staging)) {
      const col = inferredColumnName(member);
      const vt = valueType(value);
      if (col === undefined || vt === undefined || s.reserved.has(col) || cols.has(col)) continue;
      added.set(col, widen(added.get(col), vt));
    }
  }
  return added;
}

/** Adds the columns to the table, and to `cols` as the warehouse then has them. */
async function addColumns(
  w: Warehouse,
  s: TableState,
  cols: Map<string, ColumnType>,
  added: Map<string, ColumnType>,
): Promise<void> {
  if (!added.size) return;
  const extended = [...cols, ...added].map(
    ([name, type]): ColumnDef => ({ name, type, description: TOOLKIT_COLUMNS.inferred }),
  );
  await ensureTable(w, { ...s.def, columns: [...s.def.columns, ...extended] });
  // The warehouse's own types win: another process may have added the column first. (A SQLite
  // text column keeps the type inferred here: its storage cannot tell date, JSON and text apart.)
  const now = await columnTypes(w, s.def.name);
  for (const [col, type] of added) {
    const stored = now.get(col);
    // Not there after all (a lost DDL race): its values stay in extra rather than fail the load.
    if (stored === undefined) continue;
    cols.set(col, stored === "text" && !w.adapter.exactColumnTypes ? type : stored);
  }
}

/** Moves a row's staged members into their columns; what does not fit stays in the staging column. */
function moveStaged(w: Warehouse, s: TableState, cols: Map<string, ColumnType>, row: Row): void {
  const keep: Record<string, unknown> = {};
  for (const [member, value] of stagedMembers(row, s.staging)) {
    const col = inferredColumnName(member);
    const type = col === undefined ? undefined : cols.get(col);
    const fitted =
      col && type && !Object.hasOwn(row, col)
        ? fitValue(value, type, w.adapter.booleansAsIntegers)
        : undefined;
    if (fitted && col) row[col] = fitted.value;
    else if (value !== null) keep[member] = value;
  }
  if (row[s.staging] !== undefined) row[s.staging] = Object.keys(keep).length ? keep : null;
}
