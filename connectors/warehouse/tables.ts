import { type CreateTableBuilder, sql } from "kysely";
import type { TableDef } from "../../schema/table.js";
import type { Catalog } from "./adapter.js";
import { atomically } from "./atomic.js";
import { isCommentedMeanwhile, isCreatedMeanwhile, isNotPermitted } from "./driver-errors.js";
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
 * warehouse is additive). A new table gets its primary key (`primaryKeyOf`) and, where the
 * database has them, its foreign key to its parent; a table made before keys keeps the unique
 * index it has. Merges upsert on either. Comments follow the pipeline's descriptions. Safe when
 * two processes race to do the same.
 */
export async function ensureTable(w: Warehouse, def: TableDef): Promise<void> {
  const schema = await schemaOf(w);
  const have = schema.columns.get(def.name);
  if (!have) await createTable(w, def, schema);
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
  await ensureIndexes(w, def, schema);
  await ensureComments(w, def, schema);
}

/**
 * Why a table that is there cannot take `def` as `ensureTable` would change it, or undefined when
 * it can (or is not there). A primary key other than the one `def` gives a new table would refuse
 * rows `def` loads: a key column `def` does not write is null in each (NOT NULL), another key
 * repeats where `def`'s does not. Read before anything is altered, so a refused run changes nothing.
 * The one change `ensureTable` makes to a key — a `merge` table becoming `history` — is allowed.
 *
 * @example tableChangeProblem(defKeyedOn("publication_number"), catalogWithPkOn("pn"))
 * // "its primary key (pn) has column(s) pn this pipeline does not write: each row it loads would lack them"
 */
function tableChangeProblem(def: TableDef, catalog: Catalog): string | undefined {
  const pk = catalog.primaryKeys.get(def.name);
  if (!catalog.columns.has(def.name) || !pk?.length) return undefined;
  const want = primaryKeyOf(def);
  if (sameColumns(pk, want) || (def.versioned && sameColumns(pk, def.key))) return undefined;
  const unwritten = pk.filter((c) => !def.columns.some((col) => col.name === c));
  if (unwritten.length)
    return `its primary key (${pk.join(", ")}) has column(s) ${unwritten.join(", ")} this pipeline does not write: each row it loads would lack them`;
  if (want.length)
    return `its primary key is (${pk.join(", ")}), this pipeline's key (${want.join(", ")}): rows one of them tells apart the other would refuse`;
  return undefined;
}

/**
 * The tables among `defs` that are there and cannot take them (`tableChangeProblem`): what each
 * would refuse. The catalog is read afresh, nothing is changed.
 */
export async function tableChangeProblems(
  w: Warehouse,
  defs: readonly TableDef[],
): Promise<{ def: TableDef; problem: string }[]> {
  if (!defs.length) return [];
  const catalog = await w.adapter.readCatalog(w.db);
  return defs.flatMap((def) => {
    const problem = tableChangeProblem(def, catalog);
    return problem ? [{ def, problem }] : [];
  });
}

/**
 * The primary key a new table gets: the key of `merge` and `replace` (a child's: its parent's key
 * and position); a `history` parent's key and `valid_from`, its child's parent key, `valid_from`
 * and position. None in `append`, whose key repeats.
 */
function primaryKeyOf(def: TableDef): string[] {
  if (def.versioned === "parent") return [...def.key, "valid_from"];
  if (def.versioned === "child") return [...def.key.slice(0, -1), "valid_from", "position"];
  return def.key.length && def.unique !== false ? [...def.key] : [];
}

const sameColumns = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((c, i) => c === b[i]);

/** A constraint's name: Postgres keeps 63 characters of a name (table names may take all of them). */
const constraintName = (table: string, suffix: string) => `${table.slice(0, 63 - suffix.length)}${suffix}`;

async function createTable(w: Warehouse, def: TableDef, schema: Catalog): Promise<void> {
  const pk = primaryKeyOf(def);
  const parent = def.parent;
  // Only a parent whose primary key is exactly those columns can be referred to (one made before keys has none).
  const fk =
    parent && w.adapter.foreignKeys && sameColumns(schema.primaryKeys.get(parent.table) ?? [], parent.columns)
      ? parent
      : undefined;
  // Columns are named at run time: the builder's column-name type is any text.
  let create: CreateTableBuilder<string, string> = w.db.schema.createTable(def.name).ifNotExists();
  for (const c of def.columns) {
    const notNull = pk.includes(c.name);
    create = create.addColumn(c.name, sql.raw(w.adapter.sqlType(c.type)), (col) =>
      notNull ? col.notNull() : col,
    );
  }
  if (pk.length) create = create.addPrimaryKeyConstraint(constraintName(def.name, "_pkey"), pk);
  // Cascade: `replace` drops other runs' parents and their children go with them. Deferred to the
  // commit: however a load orders its writes, only the committed tables must agree.
  if (fk)
    create = create.addForeignKeyConstraint(
      constraintName(def.name, "_parent_fk"),
      [...fk.columns],
      fk.table,
      [...fk.columns],
      (c) => c.onDelete("cascade").deferrable().initiallyDeferred(),
    );
  try {
    await create.execute();
    if (pk.length) schema.primaryKeys.set(def.name, pk);
  } catch (err) {
    if (!isCreatedMeanwhile(err)) throw err;
  }
}

async function ensureIndexes(w: Warehouse, def: TableDef, schema: Catalog): Promise<void> {
  const pk = schema.primaryKeys.get(def.name) ?? [];
  for (const index of indexesOf(def)) {
    if (schema.indexes.has(index.name) || servedByPrimaryKey(index, pk)) continue;
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

/**
 * Whether the primary key's own index does an index's work: a unique index on exactly its columns,
 * a plain one on a prefix of them (the child's parent-key index, say). Not a partial one.
 */
function servedByPrimaryKey(index: IndexDef, pk: readonly string[]): boolean {
  if (index.current) return false;
  if (index.unique) return sameColumns(index.columns, pk);
  return index.columns.length <= pk.length && index.columns.every((c, i) => c === pk[i]);
}

/** Sets the comments that differ from the pipeline's descriptions (none where the database has no comments). */
async function ensureComments(w: Warehouse, def: TableDef, schema: Catalog): Promise<void> {
  if (!w.adapter.comments) return;
  const wanted: [string | undefined, string | undefined][] = [
    [undefined, def.description],
    ...def.columns.map((c): [string, string | undefined] => [c.name, c.description]),
  ];
  const key = (column: string | undefined) => (column === undefined ? def.name : `${def.name}.${column}`);
  const changed = wanted.filter(
    (x): x is [string | undefined, string] => x[1] !== undefined && schema.comments.get(key(x[0])) !== x[1],
  );
  if (!changed.length) return;
  try {
    await atomically(w.db, async (trx) => {
      for (const [column, text] of changed) await w.adapter.comment(trx, def.name, column, text);
    });
  } catch (err) {
    // Comments document: a table another role owns (where COMMENT is refused) still loads.
    if (!isCommentedMeanwhile(err) && !isNotPermitted(err)) throw err;
  }
  for (const [column, text] of changed) schema.comments.set(key(column), text);
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
    // What each load changed, newest first (the console's feeds, `changes --since LOAD`): without it
    // a million versions are scanned to find one load's. load_id only grows, so inserts append.
    out.push({ name: `${def.name}_by_load`, columns: ["load_id", ...def.key, "valid_from"], unique: false });
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
 * A table that held one row per key (`merge`) becomes a `history` table: its unique key goes (the
 * `_key` index of a table made before keys, or its primary key: on SQLite by copying the table)
 * and each row becomes its key's current version, valid from when it was loaded. Its next load
 * makes a version of every key (the old rows have no fingerprint), and from then on only changes.
 * Such a table keeps unique indexes for its versions, not a primary key, and no foreign key.
 */
async function becomeVersioned(w: Warehouse, def: TableDef, schema: Catalog): Promise<void> {
  const old = `${def.name}_key`;
  const keyed = sameColumns(schema.primaryKeys.get(def.name) ?? [], def.key);
  if (!schema.indexes.has(old) && !keyed) return;
  // One transaction: a crash leaves the merge table as it was, and the switch is made again.
  await atomically(w.db, async (trx) => {
    if (keyed) await w.adapter.dropPrimaryKey(trx, def.name);
    await trx.schema.dropIndex(old).ifExists().execute();
    await trx
      .updateTable(def.name)
      .set({ valid_from: sql.ref("loaded_at") })
      .where("valid_from", "is", null)
      .execute();
  });
  schema.indexes.delete(old);
  schema.primaryKeys.delete(def.name);
}

/** Names of the user-visible tables (not the toolkit's own), for `skillsync tables` and the server. */
export function listTables(w: Warehouse): Promise<string[]> {
  return w.adapter.listTables(w.db);
}
