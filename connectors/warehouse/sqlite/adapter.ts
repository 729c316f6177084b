import type SQLite from "better-sqlite3";
import { CompiledQuery, sql } from "kysely";
import type { ColumnType } from "../../../schema/table.js";
import type { StoredColumn, WarehouseAdapter } from "../adapter.js";
import { atomically } from "../atomic.js";
import { insertNew } from "./insert-new.js";
import { primaryKeys, rebuildWithoutPrimaryKey } from "./rebuild.js";
import { SQLITE_LEXICON } from "./sql-lexicon.js";
import { sqliteSyncDriver } from "./synchronous.js";

const SQL_TYPES: Record<ColumnType, string> = {
  text: "text",
  integer: "integer",
  number: "real",
  // NUMERIC affinity: SQLite has no exact decimal; the declared type still says what the column is.
  decimal: "numeric",
  boolean: "integer",
  date: "text",
  timestamp: "text",
  json: "text",
};

/** What a stored SQLite type can tell: the rest (boolean, date, timestamp, JSON) looks like integer or text. */
const STORED_TYPES: Record<string, ColumnType> = {
  integer: "integer",
  real: "number",
  numeric: "decimal",
  text: "text",
};

/**
 * SQLite: one file, one writer, few types; better-sqlite3 runs statements synchronously, on this
 * connection (`synchronous`).
 */
export function sqliteAdapter(database: SQLite.Database): WarehouseAdapter {
  return {
    ...SQLITE,
    synchronous: sqliteSyncDriver(database),
    insertNew: async (_db, n) => insertNew(database, SQLITE, n),
    async columns(db, table) {
      const r = await sql<{ name: string; type: string }>`
        select name, type from pragma_table_info(${table})`.execute(db);
      const origins = r.rows.length ? originsOf(database, table) : [];
      return r.rows.map(
        (c, i): StoredColumn => ({
          name: c.name,
          type: STORED_TYPES[c.type.toLowerCase()],
          ...(origins[i] ? { origin: origins[i] } : {}),
        }),
      );
    },
  };
}

/**
 * Where each column of a view comes from: the table column it shows as it is (through other views
 * too), or undefined for a computed one. SQLite keeps a view column's declared type only as `text`
 * or `integer`, so its pipeline type (a date, a boolean) is its source column's. Preparing the view's
 * SELECT reads nothing; a view that cannot be prepared (a column gone) has no origins.
 */
function originsOf(
  database: SQLite.Database,
  table: string,
): ({ table: string; column: string } | undefined)[] {
  try {
    const quoted = `"${table.replaceAll('"', '""')}"`;
    return database
      .prepare(`select * from ${quoted}`)
      .columns()
      .map((c) => (c.table && c.column ? { table: c.table, column: c.column } : undefined));
  } catch {
    return [];
  }
}

const SQLITE: Omit<WarehouseAdapter, "synchronous" | "columns" | "insertNew"> = {
  dialect: "sqlite",
  displayName: "SQLite",
  lexicon: SQLITE_LEXICON,
  schema: undefined,
  sqlType: (t) => SQL_TYPES[t],
  bind(value, type) {
    if (value === null || value === undefined) return null;
    if (type === "json") return JSON.stringify(value);
    if (type === "boolean") return value ? 1 : 0;
    return value;
  },
  binaryType: "blob",
  idColumn: (t) => t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement()),
  // SQLite has no `add column if not exists`, and its DDL is not transactional here: a
  // half-applied migration may already have added the column.
  addColumnIfNotExists: false,
  exactColumnTypes: false,
  booleansAsIntegers: true,
  readsBackAsBound: () => true,
  selectForUpdate: false,
  updateAllOrNone: undefined,
  loginRoles: false,
  foreignKeys: false,
  comments: false,
  comment: async () => {},
  dropPrimaryKey: rebuildWithoutPrimaryKey,

  async listTables(db) {
    const r = await sql<{ name: string }>`
      select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'
      and name not like 'kysely_%' order by name`.execute(db);
    return r.rows.map((x) => x.name);
  },

  // The program SQLite compiles opens every b-tree it reads by its root page, views expanded.
  async tablesRead(query, read) {
    const program = await read(`explain ${query}`);
    const opens = new Set(
      program
        .filter(
          (op) => (op["opcode"] === "OpenRead" || op["opcode"] === "ReopenIdx") && Number(op["p3"]) === 0,
        )
        .map((op) => Number(op["p2"])),
    );
    if (!opens.size) return [];
    const objects = await read("select tbl_name as t, rootpage as p from sqlite_schema where rootpage > 0");
    return [...new Set(objects.filter((o) => opens.has(Number(o["p"]))).map((o) => String(o["t"])))];
  },

  async readCatalog(db) {
    const columns = new Map<string, Set<string>>();
    const cols = await sql<{ t: string; c: string }>`
      select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
      where m.type = 'table'`.execute(db);
    for (const r of cols.rows) columns.set(r.t, (columns.get(r.t) ?? new Set<string>()).add(r.c));
    const idx = await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db);
    return {
      columns,
      indexes: new Set(idx.rows.map((r) => r.name)),
      primaryKeys: await primaryKeys(db),
      comments: new Map(),
    };
  },

  // Every transaction begins IMMEDIATE (open.ts): it holds the one write lock already.
  serialize: async () => {},

  async migrating(db, fn) {
    await sql`begin immediate`.execute(db);
    try {
      const out = await fn();
      await sql`commit`.execute(db);
      return out;
    } catch (err) {
      await sql`rollback`.execute(db).catch(() => {});
      throw err;
    }
  },

  async uniqueIndexColumns(db, table, first) {
    const r = await sql<{ index: string; column: string | null }>`
      select il.name as "index", ii.name as "column"
      from pragma_index_list(${table}) il join pragma_index_info(il.name) ii
      where il."unique" = 1 and il.partial = 0
      order by il.name = ${first} desc, il.origin = 'pk' desc, il.name, ii.seqno`.execute(db);
    return r.rows;
  },

  async resolveStatement(db, text, params) {
    await db.executeQuery(CompiledQuery.raw(`explain ${text}`, [...params]));
  },

  // The mark is a comment inside the SQL, which SQLite keeps in sqlite_master.
  async ensureView(db, name, body, mark) {
    const r = await sql<{ type: string; sql: string | null }>`
      select type, sql from sqlite_master where name = ${name}`.execute(db);
    const existing = r.rows[0];
    // A table or index of that name is the user's: left as it is (as before views were re-created).
    if (existing && existing.type !== "view") return;
    if (existing?.sql?.includes(`/* ${mark} */`)) return;
    await atomically(db, async (trx) => {
      await sql.raw(`drop view if exists "${name}"`).execute(trx);
      await sql.raw(`create view "${name}" as /* ${mark} */ ${body}`).execute(trx);
    });
  },
};
