import { CompiledQuery, sql } from "kysely";
import type { ColumnType } from "../../../schema/table.js";
import type { WarehouseAdapter } from "../adapter.js";
import { updateAllOrNone } from "./all-or-none.js";
import { columns, listTables, readCatalog, tablesRead, uniqueIndexColumns } from "./catalog.js";
import { insertNew } from "./insert-new.js";
import { comment, dropPrimaryKey } from "./keys.js";
import { POSTGRES_LEXICON } from "./sql-lexicon.js";
import { ensureView } from "./views.js";

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

/** Names of the statements `resolveStatement` prepares, unique within the process. */
let resolved = 0;

/** Postgres, with its tables in `schema` (the connection's search_path) or the default one. */
export function postgresAdapter(schema: string | undefined): WarehouseAdapter {
  return {
    ...POSTGRES,
    schema,
    tablesRead: (query, read) => tablesRead(schema, query, read),
  };
}

const POSTGRES: Omit<WarehouseAdapter, "schema" | "tablesRead"> = {
  dialect: "postgres",
  displayName: "Postgres",
  lexicon: POSTGRES_LEXICON,
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
  readsBackAsBound: (type) => type !== "json",
  selectForUpdate: true,
  updateAllOrNone,
  insertNew: (db, n) => insertNew(db, POSTGRES, n),
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
  listTables,
  readCatalog,
  columns,
  uniqueIndexColumns,
  // The values are not needed: PREPARE infers each $n's type as the run's own read would.
  async resolveStatement(db, text) {
    // EXPLAIN would plan it, and planning runs immutable functions; PREPARE stops at analysis.
    const name = `skillsync_resolve_${++resolved}`;
    await db.executeQuery(CompiledQuery.raw(`prepare ${name} as ${text}`, []));
    await db.executeQuery(CompiledQuery.raw(`deallocate ${name}`, []));
  },
  ensureView,
};
