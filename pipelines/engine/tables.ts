import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { TableDef } from "../../connectors/warehouse/types.js";

const RACE_CODES = new Set(["42P07", "42701", "23505", "42P16"]);

function isRace(err: unknown): boolean {
  const code = err && typeof err === "object" && "code" in err ? String(err.code) : "";
  const msg = err instanceof Error ? err.message : "";
  return RACE_CODES.has(code) || /duplicate column name|already exists/i.test(msg);
}

async function existingColumns(w: Warehouse, table: string): Promise<Set<string> | undefined> {
  if (w.adapter.dialect === "sqlite") {
    const r = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(w.db);
    return r.rows.length ? new Set(r.rows.map((c) => c.name)) : undefined;
  }
  const r = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_name = ${table} and table_schema = current_schema()`.execute(w.db);
  return r.rows.length ? new Set(r.rows.map((c) => c.column_name)) : undefined;
}

/**
 * Creates a table a pipeline declares, or adds the columns it lacks (never drops or retypes: a
 * warehouse is additive). The key becomes a unique index so merges can upsert on it. Safe when two
 * processes race to do the same.
 */
export async function ensureTable(w: Warehouse, def: TableDef): Promise<void> {
  const have = await existingColumns(w, def.name);
  try {
    if (!have) {
      let create = w.db.schema.createTable(def.name).ifNotExists();
      for (const c of def.columns) create = create.addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)));
      await create.execute();
    } else {
      for (const c of def.columns.filter((col) => !have.has(col.name))) {
        await w.db.schema
          .alterTable(def.name)
          .addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)))
          .execute();
      }
    }
  } catch (err) {
    if (!isRace(err)) throw err;
  }
  const indexes: [string, string[], boolean][] = [];
  if (def.key.length)
    indexes.push([
      def.unique === false ? `${def.name}_key_idx` : `${def.name}_key`,
      def.key,
      def.unique !== false,
    ]);
  for (const cols of def.indexes ?? [])
    indexes.push([`${def.name}_${cols.join("_")}_idx`.slice(0, 63), cols, false]);
  for (const [name, cols, unique] of indexes) {
    try {
      let idx = w.db.schema.createIndex(name).ifNotExists().on(def.name).columns(cols);
      if (unique) idx = idx.unique();
      await idx.execute();
    } catch (err) {
      if (!isRace(err)) throw err;
    }
  }
}

/** Names of the user-visible tables (not the toolkit's own), for `skillsync tables` and the server. */
export async function listTables(w: Warehouse): Promise<string[]> {
  if (w.adapter.dialect === "sqlite") {
    const r = await sql<{ name: string }>`
      select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'
      and name not like 'kysely_%' order by name`.execute(w.db);
    return r.rows.map((x) => x.name);
  }
  const r = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_name not like 'kysely_%' order by table_name`.execute(
    w.db,
  );
  return r.rows.map((x) => x.name);
}
