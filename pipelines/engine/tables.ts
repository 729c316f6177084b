import { sql } from "kysely";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { TableDef } from "../../connectors/warehouse/types.js";

const RACE_CODES = new Set(["42P07", "42701", "23505", "42P16"]);

function isRace(err: unknown): boolean {
  const code = err && typeof err === "object" && "code" in err ? String(err.code) : "";
  const msg = err instanceof Error ? err.message : "";
  return RACE_CODES.has(code) || /duplicate column name|already exists/i.test(msg);
}

interface KnownSchema {
  columns: Map<string, Set<string>>;
  indexes: Set<string>;
}

// One read of the catalog per warehouse connection; afterwards a run whose tables are already
// in place costs no DDL and no queries. The cache only grows, as the warehouse does.
const known = new WeakMap<Warehouse, Promise<KnownSchema>>();

async function readSchema(w: Warehouse): Promise<KnownSchema> {
  const columns = new Map<string, Set<string>>();
  const add = (t: string, c: string) => {
    const set = columns.get(t) ?? new Set<string>();
    set.add(c);
    columns.set(t, set);
  };
  if (w.adapter.dialect === "sqlite") {
    const cols = await sql<{ t: string; c: string }>`
      select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
      where m.type = 'table'`.execute(w.db);
    for (const r of cols.rows) add(r.t, r.c);
    const idx = await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(
      w.db,
    );
    return { columns, indexes: new Set(idx.rows.map((r) => r.name)) };
  }
  const cols = await sql<{ t: string; c: string }>`
    select table_name as t, column_name as c from information_schema.columns
    where table_schema = current_schema()`.execute(w.db);
  for (const r of cols.rows) add(r.t, r.c);
  const idx = await sql<{ name: string }>`
    select indexname as name from pg_indexes where schemaname = current_schema()`.execute(w.db);
  return { columns, indexes: new Set(idx.rows.map((r) => r.name)) };
}

function schemaOf(w: Warehouse): Promise<KnownSchema> {
  let p = known.get(w);
  if (!p) {
    p = readSchema(w);
    known.set(w, p);
  }
  return p;
}

/**
 * Creates a table a pipeline declares, or adds the columns it lacks (never drops or retypes: a
 * warehouse is additive). The key becomes a unique index so merges can upsert on it. Safe when two
 * processes race to do the same.
 */
export async function ensureTable(w: Warehouse, def: TableDef): Promise<void> {
  const schema = await schemaOf(w);
  const have = schema.columns.get(def.name);
  try {
    if (!have) {
      let create = w.db.schema.createTable(def.name).ifNotExists();
      for (const c of def.columns) create = create.addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)));
      await create.execute();
    }
  } catch (err) {
    if (!isRace(err)) throw err;
  }
  // Each column on its own: another process adding one of them must not make us skip the rest.
  for (const c of have ? def.columns.filter((col) => !have.has(col.name)) : []) {
    try {
      await w.db.schema
        .alterTable(def.name)
        .addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)))
        .execute();
    } catch (err) {
      if (!isRace(err)) throw err;
    }
  }
  schema.columns.set(def.name, new Set([...(have ?? []), ...def.columns.map((c) => c.name)]));
  const indexes: [string, readonly string[], boolean][] = [];
  if (def.key.length)
    indexes.push([
      def.unique === false ? `${def.name}_key_idx` : `${def.name}_key`,
      def.key,
      def.unique !== false,
    ]);
  for (const cols of def.indexes ?? [])
    indexes.push([`${def.name}_${cols.join("_")}_idx`.slice(0, 63), cols, false]);
  for (const [name, cols, unique] of indexes) {
    if (schema.indexes.has(name)) continue;
    try {
      let idx = w.db.schema
        .createIndex(name)
        .ifNotExists()
        .on(def.name)
        .columns([...cols]);
      if (unique) idx = idx.unique();
      await idx.execute();
    } catch (err) {
      if (!isRace(err)) throw err;
    }
    schema.indexes.add(name);
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
