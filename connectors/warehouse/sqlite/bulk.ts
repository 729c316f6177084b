import type SQLite from "better-sqlite3";
import type { ColumnType, TableDef } from "../../../schema/table.js";
import { type BulkRow, type BulkWriter, ident, lastPerKey, updatable, type WriteHow } from "../bulk.js";
import { cachePerOwner } from "../cache-per-owner.js";

type Statement = SQLite.Statement<unknown[]>;

// Prepared once per connection and statement text — a table's shape, the reservation's statements
// and Kysely's (open.ts): a run of many batches compiles each statement once.
const statements = cachePerOwner<SQLite.Database, Statement>();

export function prepared(database: SQLite.Database, text: string): Statement {
  return statements(database, text, () => database.prepare<unknown[]>(text));
}

type Bind = (v: unknown) => unknown;
const same: Bind = (v) => v;
const BINDERS: Record<ColumnType, Bind> = {
  text: (v) => (typeof v === "object" && v !== null ? JSON.stringify(v) : v),
  integer: same,
  number: same,
  decimal: same,
  boolean: (v) => (v ? 1 : 0),
  date: same,
  timestamp: same,
  json: (v) => JSON.stringify(v),
};

// A table's statement text, built once per table shape (a def object): building it (20 columns
// quoted and joined) took as long as running the statement for a row.
const texts = new WeakMap<TableDef, Partial<Record<WriteHow, string>>>();

function insertText(def: TableDef, how: WriteHow): string {
  let byHow = texts.get(def);
  if (!byHow) {
    byHow = {};
    texts.set(def, byHow);
  }
  byHow[how] ??= buildInsertText(def, how);
  return byHow[how];
}

function buildInsertText(def: TableDef, how: WriteHow): string {
  const cols = def.columns.map((c) => ident(c.name));
  const base = `insert into ${ident(def.name)} (${cols.join(", ")}) values (${cols.map(() => "?").join(", ")})`;
  if (how === "insert") return base;
  const set = updatable(def).map((c) => `${ident(c)} = excluded.${ident(c)}`);
  const target = def.key.map(ident).join(", ");
  return `${base} on conflict (${target}) ${set.length ? `do update set ${set.join(", ")}` : "do nothing"}`;
}

/**
 * SQLite's bulk writer: one prepared statement per table shape, run once per row. It must run
 * inside a transaction of the same connection (Kysely's SQLite dialect has one connection, so a
 * statement run from inside `db.transaction()` belongs to that transaction).
 *
 * @example
 * await w.transaction(async (tx) => tx.bulk.write(def, rows, "upsert"));
 */
export function sqliteBulkWriter(database: SQLite.Database): BulkWriter {
  return {
    async write(def, rows, how) {
      if (!rows.length) return 0;
      const list = how === "upsert" ? lastPerKey(rows, def.key) : rows;
      const stmt = prepared(database, insertText(def, how));
      const names = def.columns.map((c) => c.name);
      const binders = def.columns.map((c) => BINDERS[c.type]);
      const n = names.length;
      const values: unknown[] = new Array(n);
      for (const r of list) {
        for (let j = 0; j < n; j++) {
          const v = r[names[j]!];
          values[j] = v === null || v === undefined ? null : binders[j]!(v);
        }
        stmt.run(values);
      }
      return list.length;
    },
    async deleteMatching(def, key, keys) {
      if (!keys.length || !key.length) return;
      const where = key.map((k) => `${ident(k)} = ?`).join(" and ");
      const stmt = prepared(database, `delete from ${ident(def.name)} where ${where}`);
      const binders = key.map((k) => BINDERS[def.columns.find((c) => c.name === k)?.type ?? "text"]);
      for (const r of lastPerKey(keys, key) as BulkRow[]) {
        stmt.run(key.map((k, i) => (r[k] === null || r[k] === undefined ? null : binders[i]!(r[k]))));
      }
    },
  };
}
