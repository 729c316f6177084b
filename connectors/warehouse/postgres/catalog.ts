import { type Kysely, sql } from "kysely";
import type { ColumnType } from "../../../schema/table.js";
import type { AnyDB, Catalog, StoredColumn } from "../adapter.js";
import { comments, primaryKeys } from "./keys.js";

/** Postgres column types (information_schema data_type) as pipeline column types. */
const STORED_TYPES: Readonly<Record<string, ColumnType>> = {
  bigint: "integer",
  integer: "integer",
  smallint: "integer",
  "double precision": "number",
  real: "number",
  numeric: "decimal",
  boolean: "boolean",
  date: "date",
  "timestamp with time zone": "timestamp",
  "timestamp without time zone": "timestamp",
  jsonb: "json",
  json: "json",
  text: "text",
  "character varying": "text",
};

/** `WarehouseAdapter.listTables`: the current schema's tables and views but Kysely's. */
export async function listTables(db: Kysely<AnyDB>): Promise<string[]> {
  const r = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_name not like 'kysely_%' order by table_name`.execute(db);
  return r.rows.map((x) => x.name);
}

/**
 * `WarehouseAdapter.tablesRead` for the tables of `schema`: the plan names every relation it
 * scans, views expanded, with its schema.
 */
export async function tablesRead(
  schema: string | undefined,
  query: string,
  read: (statement: string) => Promise<Record<string, unknown>[]>,
): Promise<string[]> {
  const [row] = await read(`explain (verbose, format json) ${query}`);
  const cell = row ? Object.values(row)[0] : undefined;
  const plan: unknown = typeof cell === "string" ? JSON.parse(cell) : cell;
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === "object") {
      const r = node as Record<string, unknown>;
      if (typeof r["Relation Name"] === "string" && r["Schema"] === (schema ?? "public")) {
        out.add(r["Relation Name"]);
      }
      for (const v of Object.values(r)) walk(v);
    }
  };
  walk(plan);
  return [...out];
}

/** `WarehouseAdapter.readCatalog` of the current schema. */
export async function readCatalog(db: Kysely<AnyDB>): Promise<Catalog> {
  const columns = new Map<string, Set<string>>();
  const cols = await sql<{ t: string; c: string }>`
    select table_name as t, column_name as c from information_schema.columns
    where table_schema = current_schema()`.execute(db);
  for (const r of cols.rows) columns.set(r.t, (columns.get(r.t) ?? new Set<string>()).add(r.c));
  const idx = await sql<{ name: string }>`
    select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db);
  return {
    columns,
    indexes: new Set(idx.rows.map((r) => r.name)),
    primaryKeys: await primaryKeys(db),
    comments: await comments(db),
  };
}

/** `WarehouseAdapter.columns`: a table's columns in order, typed from their stored types. */
export async function columns(db: Kysely<AnyDB>, table: string): Promise<StoredColumn[]> {
  const r = await sql<{ column_name: string; data_type: string }>`
    select column_name, data_type from information_schema.columns
    where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(db);
  return r.rows.map((c): StoredColumn => ({ name: c.column_name, type: STORED_TYPES[c.data_type] }));
}

/** `WarehouseAdapter.uniqueIndexColumns`, from pg_index. */
export async function uniqueIndexColumns(
  db: Kysely<AnyDB>,
  table: string,
  first: string,
): Promise<{ index: string; column: string | null }[]> {
  const r = await sql<{ index: string; column: string | null }>`
    select i.relname as "index", a.attname as "column"
    from pg_index x
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    join pg_class i on i.oid = x.indexrelid
    cross join lateral unnest(x.indkey::int2[]) with ordinality k(attnum, pos)
    left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
    where t.relname = ${table} and x.indisunique and x.indpred is null and x.indexprs is null
    order by i.relname = ${first} desc, x.indisprimary desc, i.relname, k.pos`.execute(db);
  return r.rows;
}
