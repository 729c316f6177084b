import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type SqliteDatabase, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { type AnyDB, registerAdapter, type WarehouseAdapter } from "./adapter.js";
import type { WarehouseTx } from "./bulk.js";

export type { AnyDB } from "./adapter.js";
export type { WarehouseTx } from "./bulk.js";

import { ConfigurationError } from "../../core/errors.js";
import {
  isBusy,
  isMissingDatabase,
  isNotADatabase,
  isNotPermitted,
  isUniqueViolation,
} from "./driver-errors.js";
import { postgresAdapter } from "./postgres/adapter.js";
import { WarehousePostgresDialect } from "./postgres/introspector.js";
import { pgTransaction } from "./postgres/transaction.js";
import { sqliteAdapter } from "./sqlite/adapter.js";
import { prepared, sqliteBulkWriter } from "./sqlite/bulk.js";
import { describeWarehouse, parseWarehouseUrl, type WarehouseTarget } from "./url.js";

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
export const pgTypes = {
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
    // Every transaction takes the write lock at BEGIN, waiting for it up to busy_timeout. A
    // deferred one that read first fails AT ONCE ("database is locked") when it then writes
    // after another process did; and a decision read inside one holds until its commit.
    prepare: (text) => prepared(database, text === "begin" ? "begin immediate" : text),
  };
}

/** How long a SQLite connection waits for another process's lock before "database is locked". */
const BUSY_TIMEOUT_MS = 15_000;

/** The settings every warehouse connection to a SQLite file runs with (the bench's raw reference too). */
export function setWarehousePragmas(database: SQLite.Database): void {
  // Concurrent runs and schedulers share the file: wait for the writer instead of failing. First,
  // so the pragmas below wait too: switching to WAL needs the file while a process that opened it
  // a moment earlier may be migrating it (better-sqlite3 waits only 5 s by default).
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  useWal(database);
  database.pragma("synchronous = NORMAL");
  // Checkpoint every ~40 MB of WAL instead of 4 MB: pages written again and again between two
  // checkpoints (index leaves, the ledger) reach the database file once (commits ~35% cheaper).
  database.pragma("wal_autocheckpoint = 10000");
  database.pragma("foreign_keys = ON");
}

/**
 * Switches the file to WAL, waiting for another process's write transaction on it. SQLite does not
 * wait there itself: the switch needs the file alone, and a connection that finds another one
 * writing gets "database is locked" at once, busy_timeout or not (a new warehouse opened by
 * several processes at once, one of them already creating its tables).
 */
function useWal(database: SQLite.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let delay = 10; ; delay = Math.min(200, delay * 2)) {
    try {
      database.pragma("journal_mode = WAL");
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      // Opening is synchronous (better-sqlite3): a short blocking pause, not a busy loop.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
    }
  }
}

/**
 * Opens the warehouse named by a URL (or DATABASE_URL, or ./skillsync.db).
 *
 * @example
 * const w = await openWarehouse("postgres://postgres@127.0.0.1/test?schema=demo");
 * await w.db.selectFrom("skillsync_runs").selectAll().execute();
 * await w.close();
 */
export async function openWarehouse(url?: string, o: { existing?: boolean } = {}): Promise<Warehouse> {
  const target = parseWarehouseUrl(url);
  if (o.existing) await mustExist(target);
  if (target.kind === "sqlite") {
    if (target.path !== ":memory:") mkdirSync(dirname(target.path), { recursive: true });
    const database = new SQLite(target.path, { timeout: BUSY_TIMEOUT_MS });
    try {
      setWarehousePragmas(database);
    } catch (err) {
      database.close();
      if (!isNotADatabase(err)) throw err;
      throw new ConfigurationError(
        `${target.path} is not a SQLite database; --db (or DATABASE_URL) takes a warehouse: a SQLite file, sqlite:PATH or postgres://…`,
      );
    }
    const db = new Kysely<AnyDB>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) });
    registerAdapter(db, sqliteAdapter);
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
  if (target.schema && !o.existing) {
    const admin = new pg.Client({ connectionString: target.connectionString });
    await admin.connect().catch(async (err: unknown) => {
      await admin.end().catch(() => {});
      throw isMissingDatabase(err) ? missingPostgres(target) : err;
    });
    try {
      await admin.query(`create schema if not exists "${target.schema}"`);
    } catch (err) {
      // Two processes creating the same schema at once: the loser sees a unique violation. A
      // read-only role may not create schemas but reads the one that exists.
      if (!isUniqueViolation(err) && !isNotPermitted(err)) throw err;
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
  const db = new Kysely<AnyDB>({ dialect: new WarehousePostgresDialect({ pool }) });
  await sql`select 1`.execute(db).catch(async (err: unknown) => {
    await db.destroy();
    throw isMissingDatabase(err) ? missingPostgres(target) : err;
  });
  const adapter = postgresAdapter(target.schema);
  registerAdapter(db, adapter);
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

const NOT_THERE = "run a pipeline or `skillsync migrate` to create one";

function missingPostgres(target: WarehouseTarget): ConfigurationError {
  return new ConfigurationError(
    `no database at ${describeWarehouse(target)}: create it (createdb) or fix --db / DATABASE_URL`,
  );
}

/**
 * For commands that only read: the warehouse must be there already. A mistyped path would
 * otherwise become a new empty warehouse (and its folders) that answers every question with nothing.
 */
async function mustExist(target: WarehouseTarget): Promise<void> {
  if (target.kind === "sqlite") {
    if (target.path === ":memory:" || existsSync(target.path)) return;
    throw new ConfigurationError(`no warehouse at ${target.path} — ${NOT_THERE}`);
  }
  if (!target.schema) return;
  const client = new pg.Client({ connectionString: target.connectionString });
  try {
    await client.connect();
    const r = await client.query("select 1 from information_schema.schemata where schema_name = $1", [
      target.schema,
    ]);
    if (r.rowCount === 0)
      throw new ConfigurationError(`no warehouse at ${describeWarehouse(target)} — ${NOT_THERE}`);
  } catch (err) {
    throw isMissingDatabase(err) ? missingPostgres(target) : err;
  } finally {
    await client.end().catch(() => {});
  }
}
