import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { postgresAdapter, sqliteAdapter, type WarehouseAdapter } from "./adapter.js";
import type { WarehouseTx } from "./bulk.js";

export type { WarehouseTx } from "./bulk.js";

import { prepared, sqliteBulkWriter } from "./bulk-sqlite.js";
import { pgTransaction } from "./pg-transaction.js";
import { describeWarehouse, parseWarehouseUrl, type WarehouseTarget } from "./url.js";

// Tables are created at run time from pipeline files, so the database type is open.
// biome-ignore lint/suspicious/noExplicitAny: rows of user-declared tables
export type AnyDB = any;

/** The driver under Kysely, for the bulk paths and the benchmark's raw reference. */
export type RawDriver = { kind: "sqlite"; database: SQLite.Database } | { kind: "postgres"; pool: pg.Pool };

export interface Warehouse {
  readonly db: Kysely<AnyDB>;
  readonly adapter: WarehouseAdapter;
  readonly raw: RawDriver;
  /**
   * One transaction with Kysely (`tx.db`) and the bulk row writer (`tx.bulk`) on the same
   * connection: committed when `fn` resolves, rolled back when it throws.
   *
   * @example await w.transaction(async (tx) => { await tx.bulk.write(def, rows, "upsert"); await markLoaded(tx.db, …); });
   */
  transaction<T>(fn: (tx: WarehouseTx) => Promise<T>): Promise<T>;
  readonly target: WarehouseTarget;
  /** Printable description, password masked. */
  readonly description: string;
  close(): Promise<void>;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_DATE = 1082;
const PG_TIMESTAMPTZ = 1184;
const PG_TIMESTAMP = 1114;

// Numbers as numbers, dates as ISO text: the same values come back from SQLite and Postgres.
const pgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === PG_INT8 || oid === PG_NUMERIC) return (v: string) => Number(v);
    if (oid === PG_DATE) return (v: string) => v;
    if (oid === PG_TIMESTAMPTZ || oid === PG_TIMESTAMP) return (v: string) => new Date(v).toISOString();
    return pg.types.getTypeParser(oid, format ?? "text");
  },
};

/**
 * Kysely's SQLite driver prepares every statement it runs; the ledger's few statements run once
 * per call, so each is prepared once per connection and reused, from the same cache as the bulk
 * writer's (SQLite re-prepares a statement itself when the schema changes under it).
 */
function reusingStatements(database: SQLite.Database): SqliteDatabase {
  return {
    close: () => database.close(),
    prepare: (text) => prepared(database, text),
  };
}

/** The settings every warehouse connection to a SQLite file runs with (the bench's raw reference too). */
export function setWarehousePragmas(database: SQLite.Database): void {
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  // Checkpoint every ~40 MB of WAL instead of 4 MB: pages written again and again between two
  // checkpoints (index leaves, the ledger) reach the database file once (commits ~35% cheaper).
  database.pragma("wal_autocheckpoint = 10000");
  database.pragma("foreign_keys = ON");
  // Concurrent runs and schedulers share the file: wait for the writer instead of failing.
  database.pragma("busy_timeout = 15000");
}

/**
 * Opens the warehouse named by a URL (or DATABASE_URL, or ./skillsync.db).
 *
 * @example
 * const w = await openWarehouse("postgres://postgres@127.0.0.1/test?schema=demo");
 * await w.db.selectFrom("skillsync_runs").selectAll().execute();
 * await w.close();
 */
export async function openWarehouse(url?: string): Promise<Warehouse> {
  const target = parseWarehouseUrl(url);
  if (target.kind === "sqlite") {
    if (target.path !== ":memory:") mkdirSync(dirname(target.path), { recursive: true });
    const database = new SQLite(target.path);
    setWarehousePragmas(database);
    const db = new Kysely<AnyDB>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) });
    const bulk = sqliteBulkWriter(database);
    return {
      db,
      adapter: sqliteAdapter,
      raw: { kind: "sqlite", database },
      // One connection: statements run directly on it from inside Kysely's transaction are part of it.
      transaction: (fn) => db.transaction().execute((trx) => fn({ db: trx, bulk })),
      target,
      description: describeWarehouse(target),
      close: () => db.destroy(),
    };
  }
  if (target.schema) {
    const admin = new pg.Client({ connectionString: target.connectionString });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists "${target.schema}"`);
    } catch (err) {
      // Two processes creating the same schema at once: the loser sees a unique violation.
      if (!(err instanceof Error && "code" in err && err.code === "23505")) throw err;
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: 10,
    types: pgTypes,
    ...(target.schema ? { options: `-c search_path="${target.schema}"` } : {}),
  });
  const db = new Kysely<AnyDB>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  const adapter = postgresAdapter(target.schema);
  return {
    db,
    adapter,
    raw: { kind: "postgres", pool },
    transaction: (fn) => pgTransaction(pool, adapter, fn),
    target,
    description: describeWarehouse(target),
    close: () => db.destroy(),
  };
}
