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
  if (def.versioned) await becomeVersioned(w, def, schema);
  for (const index of indexesOf(def)) {
    if (schema.indexes.has(index.name)) continue;
    try {
      let idx = w.db.schema
        .createIndex(index.name)
        .ifNotExists()
        .on(def.name)
        .columns([...index.columns]);
      if (index.unique) idx = idx.unique();
      if (index.current) idx = idx.where("valid_to", "is", null);
      await idx.execute();
    } catch (err) {
      if (!isCreatedMeanwhile(err)) throw err;
    }
    schema.indexes.add(index.name);
  }
}

interface IndexDef {
  name: string;
  columns: readonly string[];
  unique: boolean;
  /** Over current versions only (`valid_to is null`). */
  current?: boolean;
}

/**
 * A table's indexes. A `history` parent's key is unique per `valid_from`, and among current
 * versions: the database itself keeps one current version per key. A child's rows are unique per
 * parent key, parent version and position.
 */
function indexesOf(def: TableDef): IndexDef[] {
  const out: IndexDef[] = [];
  if (def.versioned === "parent") {
    out.push({ name: `${def.name}_version`, columns: [...def.key, "valid_from"], unique: true });
    out.push({ name: `${def.name}_current_key`, columns: def.key, unique: true, current: true });
  } else if (def.versioned === "child") {
    const parentKey = def.key.slice(0, -1);
    out.push({
      name: `${def.name}_version`,
      columns: [...parentKey, "valid_from", "position"],
      unique: true,
    });
  } else if (def.key.length) {
    const unique = def.unique !== false;
    out.push({ name: unique ? `${def.name}_key` : `${def.name}_key_idx`, columns: def.key, unique });
  }
  for (const cols of def.indexes ?? [])
    out.push({ name: `${def.name}_${cols.join("_")}_idx`.slice(0, 63), columns: cols, unique: false });
  return out;
}

/**
 * A table that held one row per key (`merge`) becomes a `history` table: its unique key goes and
 * each row becomes its key's current version, valid from when it was loaded. Its next load makes
 * a version of every key (the old rows have no fingerprint), and from then on only changes.
 */
async function becomeVersioned(w: Warehouse, def: TableDef, schema: Catalog): Promise<void> {
  const old = `${def.name}_key`;
  if (!schema.indexes.has(old)) return;
  await w.db.transaction().execute(async (trx) => {
    await trx.schema.dropIndex(old).ifExists().execute();
    await trx
      .updateTable(def.name)
      .set({ valid_from: sql.ref("loaded_at") })
      .where("valid_from", "is", null)
      .execute();
  });
  schema.indexes.delete(old);
}

/** Names of the user-visible tables (not the toolkit's own), for `skillsync tables` and the server. */
export function listTables(w: Warehouse): Promise<string[]> {
  return w.adapter.listTables(w.db);
}
