import { CompiledQuery, sql } from "kysely";
import type { ColumnType } from "../../../schema/table.js";
import type { StoredColumn, WarehouseAdapter } from "../adapter.js";
import { atomically } from "../atomic.js";
import { updateAllOrNone } from "./all-or-none.js";
import { comment, comments, commentView, dropPrimaryKey, primaryKeys } from "./keys.js";
import { POSTGRES_LEXICON } from "./sql-lexicon.js";

const SQL_TYPES: Record<ColumnType, string> = {
  text: "text",
  integer: "bigint",
  number: "double precision",
  // Exact decimals: money sums and compares to the cent, as a double does not.
  decimal: "numeric",
  boolean: "boolean",
  date: "date",
  timestamp: "timestamptz",
  json: "jsonb",
};

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

/** Postgres, with its tables in `schema` (the connection's search_path) or the default one. */
/** Names of the statements `resolveStatement` prepares, unique within the process. */
let resolved = 0;

export function postgresAdapter(schema: string | undefined): WarehouseAdapter {
  return {
    dialect: "postgres",
    displayName: "Postgres",
    lexicon: POSTGRES_LEXICON,
    schema,
    sqlType: (t) => SQL_TYPES[t],
    bind(value, type) {
      if (value === null || value === undefined) return null;
      // pg sends JS arrays as Postgres arrays; jsonb wants JSON text.
      if (type === "json") return JSON.stringify(value);
      return value;
    },
    binaryType: "bytea",
    idColumn: (t) => t.addColumn("id", "bigserial", (c) => c.primaryKey()),
    addColumnIfNotExists: true,
    exactColumnTypes: true,
    booleansAsIntegers: false,
    selectForUpdate: true,
    updateAllOrNone,
    synchronous: undefined,
    loginRoles: true,
    foreignKeys: true,
    comments: true,
    comment,
    dropPrimaryKey,
    migrating: (_db, fn) => fn(),
    // One key per schema and name: runs on other schemas of the database do not wait for each other.
    async serialize(trx, name) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`skillsync:${name}:`} || current_schema(), 0))`.execute(
        trx,
      );
    },

    async listTables(db) {
      const r = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_name not like 'kysely_%' order by table_name`.execute(
        db,
      );
      return r.rows.map((x) => x.name);
    },

    // The plan names every relation it scans, views expanded, with its schema.
    async tablesRead(query, read) {
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
    },

    async readCatalog(db) {
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
    },

    async columns(db, table) {
      const r = await sql<{ column_name: string; data_type: string }>`
        select column_name, data_type from information_schema.columns
        where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(
        db,
      );
      return r.rows.map((c): StoredColumn => ({ name: c.column_name, type: STORED_TYPES[c.data_type] }));
    },

    async uniqueIndexColumns(db, table, first) {
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
    },

    // The values are not needed: PREPARE infers each $n's type as the run's own read would.
    async resolveStatement(db, text) {
      // EXPLAIN would plan it, and planning runs immutable functions; PREPARE stops at analysis.
      const name = `skillsync_resolve_${++resolved}`;
      await db.executeQuery(CompiledQuery.raw(`prepare ${name} as ${text}`, []));
      await db.executeQuery(CompiledQuery.raw(`deallocate ${name}`, []));
    },

    // The mark ends the view's `COMMENT ON VIEW`. Replacing a view waits for every query reading it
    // (and every later reader waits behind that), hence the look first.
    async ensureView(db, name, body, mark, comments) {
      const r = await sql<{ mark: string | null }>`
        select obj_description(c.oid, 'pg_class') as mark from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where c.relname = ${name} and n.nspname = current_schema() and c.relkind = 'v'`.execute(db);
      if (r.rows[0]?.mark?.endsWith(`(${mark})`)) return;
      const replace = (dropFirst: boolean) =>
        atomically(db, async (trx) => {
          if (dropFirst) await sql.raw(`drop view if exists "${name}"`).execute(trx);
          await sql.raw(`create or replace view "${name}" as ${body}`).execute(trx);
          await commentView(trx, name, `${comments.view} (${mark})`, comments.column);
        });
      try {
        // Replaced in place where Postgres allows it: views a user built on top of it keep working.
        await replace(false);
      } catch (err) {
        // Columns removed, renamed or retyped: only a new view will do (refused if others depend on it).
        if (!/cannot (drop columns from|change name of|change data type of) view/i.test(String(err)))
          throw err;
        await replace(true);
      }
    },
  };
}
