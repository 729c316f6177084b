import { sql } from "kysely";
import type { TableDef } from "../../schema/table.js";
import type { Catalog } from "./adapter.js";
import { isCreatedMeanwhile } from "./driver-errors.js";
import type { Warehouse } from "./open.js";

// One read of the catalog per warehouse connection; afterwards a run whose tables are already
// in place costs no DDL and no queries. The cache only grows, as the warehouse does.
const known = new WeakMap<Warehouse, Promise<Catalog>>();

function schemaOf(w: Warehouse): Promise<Catalog> {
  let p = known.get(w);
  if (!p) {
    p = w.adapter.readCatalog(w.db);
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
    if (!isCreatedMeanwhile(err)) throw err;
  }
  // Each column on its own: another process adding one of them must not make us skip the rest.
  for (const c of have ? def.columns.filter((col) => !have.has(col.name)) : []) {
    try {
      await w.db.schema
        .alterTable(def.name)
        .addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)))
        .execute();
    } catch (err) {
      if (!isCreatedMeanwhile(err)) throw err;
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
      if (!isCreatedMeanwhile(err)) throw err;
    }
    schema.indexes.add(name);
  }
}

/** Names of the user-visible tables (not the toolkit's own), for `skillsync tables` and the server. */
export function listTables(w: Warehouse): Promise<string[]> {
  return w.adapter.listTables(w.db);
}
