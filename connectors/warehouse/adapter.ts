import type { CreateTableBuilder, Kysely, RawBuilder } from "kysely";
import type { ColumnType } from "../../schema/table.js";

// Tables are created at run time from pipeline files, so the database type is open.
// biome-ignore lint/suspicious/noExplicitAny: rows of user-declared tables
export type AnyDB = any;

/** A column as the warehouse stores it: its pipeline type where the stored type tells one. */
export interface StoredColumn {
  name: string;
  type: ColumnType | undefined;
  /**
   * The table column a view's column shows as it is, where the database tells it and its stored
   * type cannot tell the pipeline type (SQLite): that column's declared type is the view column's.
   */
  origin?: { table: string; column: string } | undefined;
}

/** The columns and indexes a warehouse has, read from its catalog in one go. */
export interface Catalog {
  /** table → its column names. */
  columns: Map<string, Set<string>>;
  /** Index names. */
  indexes: Set<string>;
  /** table → its primary key's columns in key order (tables that have one). */
  primaryKeys: Map<string, string[]>;
  /** Comments by `table` and `table.column` (empty where the database has none: `comments`). */
  comments: Map<string, string>;
}

/** What a view's comments say: the view's own, and each of its columns' by name. */
interface ViewComments {
  view: string;
  column(name: string): string;
}

/**
 * A statement prepared once per connection and text, run synchronously. Parameters: one object for
 * named ones (`@name`), one array for positional ones (`?`).
 */
interface SyncStatement {
  /** Every row of a query. */
  all(params: unknown): unknown[];
  /** The first row of a query (or of a statement's `returning`). */
  get(params: unknown): unknown;
  /** Runs a statement; `changes`: how many rows it changed. */
  run(params: unknown): { changes: number };
}

/**
 * A driver that runs statements synchronously on its one connection (`WarehouseAdapter.synchronous`).
 * The caller holds Kysely's connection meanwhile (`db.connection().execute`), so no other statement
 * runs inside its transaction.
 */
export interface SyncDriver {
  /**
   * Runs `fn` as one write transaction (BEGIN IMMEDIATE) without yielding to the event loop:
   * committed when it returns, rolled back when it throws.
   */
  immediate<T>(fn: () => T): T;
  /** The statement of this text, prepared once per connection. */
  prepare(text: string): SyncStatement;
  /**
   * SQL for the values of the JSON array bound to the named parameter `param` (`@param`), as a
   * subquery (`x in <it>`): one statement, prepared once, whatever the list's length.
   */
  jsonArrayValues(param: string): string;
}

/** Rows for `WarehouseAdapter.insertNew`: values in `columns` order, JS values as the mapping makes them. */
export interface NewRows {
  table: string;
  columns: readonly { name: string; type: ColumnType }[];
  rows: readonly (readonly unknown[])[];
  /** The column of a unique index: a row whose value is there already is skipped. */
  unique: string;
}

/** One statement that changes every row of a set or none (`WarehouseAdapter.updateAllOrNone`). */
export interface AllOrNoneUpdate {
  table: string;
  /** The key column; the rows are those whose key is one of `keys`. */
  key: string;
  keys: readonly string[];
  /** What to set (`a = a + 1, b = …`). */
  set: RawBuilder<unknown>;
  /** The condition every row must meet (its columns by name) for any row to change. */
  fits: RawBuilder<unknown>;
}

/**
 * How the database reads SQL text where the two differ, for the read-only path's first check
 * (read-only.ts), which finds a statement's words outside its strings, quoted names and comments.
 */
export interface SqlLexicon {
  /** Whether a block comment inside a block comment nests (Postgres) or the first end ends both (SQLite). */
  readonly nestedComments: boolean;
  /** Whether `E'…'` strings take backslash escapes (Postgres). */
  readonly escapeStrings: boolean;
  /** The quotes of names, opening → closing: `"…"` everywhere, `` `…` `` and `[…]` in SQLite too. */
  readonly identifierQuotes: ReadonlyMap<string, string>;
  /** Whether `$tag$…$tag$` quotes a string (Postgres). */
  readonly dollarQuotes: boolean;
  /** The pragmas a read may ask for, without `=` (SQLite); undefined where there are no pragmas. */
  readonly readPragmas: ReadonlySet<string> | undefined;
}

/**
 * What differs between SQLite and Postgres, in one place: column types, how values are bound,
 * what the catalog looks like, and what the database can do. Everything else is plain Kysely.
 * The implementations are `sqlite/adapter.ts` and `postgres/adapter.ts`; code outside this
 * folder asks the adapter, never which database it is.
 */
export interface WarehouseAdapter {
  /** Which database, for messages and tests; choose behaviour by the flags and methods below. */
  readonly dialect: "sqlite" | "postgres";
  /** The database's name as messages print it: "SQLite", "Postgres". */
  readonly displayName: string;
  /** How it reads SQL text (strings, quoted names, comments, pragmas). */
  readonly lexicon: SqlLexicon;
  /** The schema tables live in (Postgres `?schema=`), for introspection. */
  readonly schema: string | undefined;

  /** SQL type for a pipeline column type. */
  sqlType(type: ColumnType): string;
  /** A JS value ready to bind for a column of this type (booleans as 0/1 and JSON as text in SQLite). */
  bind(value: unknown, type: ColumnType): unknown;
  /** SQL type of a column of raw bytes (stored responses). */
  readonly binaryType: string;
  /** Adds the table's `id` column: a primary key the database numbers itself. */
  idColumn<TB extends string, C extends string>(
    table: CreateTableBuilder<TB, C>,
  ): CreateTableBuilder<TB, C | "id">;
  /** Whether `alter table … add column if not exists` exists (else the caller looks first). */
  readonly addColumnIfNotExists: boolean;

  /**
   * Whether a column's stored type tells its pipeline type. Not in SQLite, whose tables keep
   * booleans as integer and date, timestamp and JSON as text: there a pipeline's declared type,
   * or a look at the values, says more.
   */
  readonly exactColumnTypes: boolean;
  /** Whether booleans are stored as 0/1 integers (an integer column takes a boolean value). */
  readonly booleansAsIntegers: boolean;
  /**
   * Whether a column of this type reads back as its value was bound (`bind`), so a row just written
   * need not be read again to be compared with what the database holds: every type in SQLite, which
   * keeps what it is given within the column's affinity; all but JSON in Postgres through the
   * warehouse's type parsers (jsonb reorders members).
   */
  readsBackAsBound(type: ColumnType): boolean;

  /**
   * Whether one statement can lock several rows in a chosen order (`select … order by … for
   * update`). SQLite has one writer and no row locks.
   */
  readonly selectForUpdate: boolean;
  /**
   * Where rows can be locked in a chosen order (Postgres): ONE statement that locks the rows of
   * `u.keys` in the keys' code-point order, then sets `u.set` on them only when every one is there
   * and meets `u.fits`, re-read after any wait for its lock; returns how many rows it changed
   * (all of them, or 0). A multi-row reservation is then one round trip. Undefined on SQLite.
   */
  readonly updateAllOrNone: ((db: Kysely<AnyDB>, u: AllOrNoneUpdate) => Promise<number>) | undefined;
  /**
   * Inserts many rows at once, skipping each whose `unique` column's value is already there (or
   * earlier in `rows`); returns that column's values of the rows it inserted, so the caller knows
   * which are new. Postgres: one `INSERT … SELECT FROM unnest(arrays) ON CONFLICT DO NOTHING
   * RETURNING` per 10,000 rows (13 bound arrays, not 130,000 values); SQLite: one prepared
   * statement run per row, its change count saying whether the row went in.
   */
  insertNew(db: Kysely<AnyDB>, n: NewRows): Promise<unknown[]>;
  /**
   * Where the driver runs statements synchronously on the one connection (better-sqlite3): its
   * transactions of prepared statements, which run without yielding to the event loop. Undefined
   * where statements are asynchronous (Postgres).
   */
  readonly synchronous: SyncDriver | undefined;
  /**
   * Makes the rest of the caller's transaction run alone among the transactions that call it with
   * the same `name`, in this warehouse, until it ends: a decision read and written in it (is this
   * request in flight? then reserve it) cannot interleave with another process's. Postgres takes a
   * transaction-scoped advisory lock; SQLite's transactions hold the write lock from their BEGIN
   * (BEGIN IMMEDIATE, open.ts), so there is nothing more to take.
   */
  serialize(trx: Kysely<AnyDB>, name: string): Promise<void>;
  /**
   * Runs Kysely's migrator so that one process at a time migrates. SQLite: inside one BEGIN
   * IMMEDIATE on the one connection (Kysely runs SQLite migrations outside any transaction and
   * without a lock, so two processes both applied 001 and one failed on kysely_migration's unique
   * name); everything commits together or not at all. Postgres: as it is (the migrator takes an
   * advisory lock and a transaction itself).
   */
  migrating<T>(db: Kysely<AnyDB>, fn: () => Promise<T>): Promise<T>;

  /** Names of the tables and views, without the database's and Kysely's own, in name order. */
  listTables(db: Kysely<AnyDB>): Promise<string[]>;
  /**
   * The tables of the warehouse's schema that `query` (one read) would read, through views too,
   * as the database plans it: `read` runs a read-only statement (the caller's read path).
   */
  tablesRead(
    query: string,
    read: (statement: string) => Promise<Record<string, unknown>[]>,
  ): Promise<string[]>;
  /** Every table's columns and every index, in the schema tables live in. */
  readCatalog(db: Kysely<AnyDB>): Promise<Catalog>;
  /** A table's (or view's) columns in their order; none when it does not exist. */
  columns(db: Kysely<AnyDB>, table: string): Promise<StoredColumn[]>;
  /**
   * The columns of the table's unique indexes without expression or predicate, one row per column
   * (`column` null for an expression), index by index: `first` first, then the primary key's, then
   * by name, each in index order.
   */
  uniqueIndexColumns(
    db: Kysely<AnyDB>,
    table: string,
    first: string,
  ): Promise<{ index: string; column: string | null }[]>;
  /**
   * Makes view `name` show `body` unless it is already marked with `mark` (a view or table of that
   * name that is not ours is left alone where the database tells them apart). Replacing a view
   * keeps views built on it working where the database allows. Where the database keeps comments,
   * the view gets `comments` (the mark ends the view's: `<text> (<mark>)`), so `mark` must change
   * when they do.
   */
  ensureView(
    db: Kysely<AnyDB>,
    name: string,
    body: string,
    mark: string,
    comments: ViewComments,
  ): Promise<void>;
  /**
   * Whether child tables get a foreign key to their parent (Postgres). SQLite checks foreign keys
   * only with a per-connection pragma and cannot drop one without rebuilding the table.
   */
  readonly foreignKeys: boolean;
  /** Whether tables and columns take comments (`COMMENT ON`, Postgres); SQLite has none. */
  readonly comments: boolean;
  /** Sets the comment of a table (`column` undefined) or of one of its columns. */
  comment(db: Kysely<AnyDB>, table: string, column: string | undefined, text: string): Promise<void>;
  /**
   * Drops a table's primary key, keeping its rows, indexes and columns, inside the caller's
   * transaction: Postgres drops the constraint (and, with it, the foreign keys that refer to it);
   * SQLite, which cannot, copies the table into one made without it.
   */
  dropPrimaryKey(db: Kysely<AnyDB>, table: string): Promise<void>;
  /**
   * Whether the database has login roles (Postgres): read paths then log in as a reader role
   * (postgres/reader.ts), whose password the warehouse keeps in a table only its owner reads.
   */
  readonly loginRoles: boolean;
  /**
   * Has the database resolve one statement — its tables, columns and types — without running it
   * or planning it, so nothing in it (a function, `explain analyze`) executes with the caller's
   * privileges: SQLite compiles it (`EXPLAIN` returns its program, never runs it); Postgres parses
   * and analyses it (`PREPARE`, then `DEALLOCATE`; functions run only at planning and execution).
   * Throws the database's error for a statement it cannot resolve.
   */
  resolveStatement(db: Kysely<AnyDB>, text: string, params: readonly unknown[]): Promise<void>;
}

/** A JSON column's value: text in SQLite, already parsed by pg in Postgres. */
export function readJson<T = unknown>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

// Keyed by Kysely's own dialect adapter, which a Kysely instance shares with its transactions and
// connections (reused-query.ts keys on it too).
const adapters = new WeakMap<object, WarehouseAdapter>();

/** Records which warehouse adapter a Kysely instance (and so each of its transactions) speaks. */
export function registerAdapter(db: Kysely<AnyDB>, adapter: WarehouseAdapter): void {
  adapters.set(db.getExecutor().adapter, adapter);
}

/**
 * The warehouse adapter of a Kysely instance or transaction from `openWarehouse` (or a warehouse
 * transaction), for code that is handed only a transaction.
 *
 * @example if (adapterOf(trx).selectForUpdate) { … }
 */
export function adapterOf(db: Kysely<AnyDB>): WarehouseAdapter {
  const adapter = adapters.get(db.getExecutor().adapter);
  if (!adapter) throw new Error("not a warehouse connection: open it with openWarehouse");
  return adapter;
}
