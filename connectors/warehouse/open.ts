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
import { openFailure } from "./open-errors.js";
import { postgresAdapter } from "./postgres/adapter.js";
import { BoundedClient } from "./postgres/connect.js";
import { WarehousePostgresDialect } from "./postgres/introspector.js";
import { type ReaderSlot, readerSlot } from "./postgres/reader.js";
import { pgTransaction } from "./postgres/transaction.js";
import { pgTypes } from "./postgres/types.js";
import { sqliteAdapter } from "./sqlite/adapter.js";
import { prepared, sqliteBulkWriter } from "./sqlite/bulk.js";
import { checkpointOnClose } from "./sqlite/checkpoint.js";
import { closeSqliteReaders } from "./sqlite/read-only.js";
import { describeWarehouse, parseWarehouseUrl, type WarehouseTarget } from "./url.js";

/** The driver under Kysely, for the bulk paths and the benchmark's raw reference. */
type RawDriver = { kind: "sqlite"; database: SQLite.Database } | { kind: "postgres"; pool: pg.Pool };

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
  /**
   * Postgres: the login the read paths use (`readOnly`), opened on first use — never the owner's
   * session unless that login can only read (postgres/reader.ts). Undefined on SQLite, whose
   * reads open the file read-only instead.
   */
  readonly reader: ReaderSlot | undefined;
  close(): Promise<void>;
}

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
export async function openWarehouse(
  url?: string,
  o: {
    existing?: boolean;
    /** A reader login for the read paths (`--read-db`; default SKILLSYNC_READ_DATABASE_URL). */
    readUrl?: string | undefined;
    /**
     * Open to read, changing nothing (`plan`): no SQLite file, folder or WAL switch, no Postgres
     * schema; every session refuses writes. A warehouse that is not there reads as an empty one.
     */
    readOnly?: boolean;
  } = {},
): Promise<Warehouse> {
  const target = parseWarehouseUrl(url);
  try {
    return await openTarget(target, o);
  } catch (err) {
    throw openFailure(err, target);
  }
}

async function openTarget(
  target: WarehouseTarget,
  o: { existing?: boolean; readUrl?: string | undefined; readOnly?: boolean },
): Promise<Warehouse> {
  if (o.existing) await mustExist(target);
  if (target.kind === "sqlite" && o.readOnly) return openSqliteToRead(target);
  if (target.kind === "sqlite") {
    if (target.path !== ":memory:") mkdirSync(dirname(target.path), { recursive: true });
    const database = sqliteConnection(target, target.path, {}, setWarehousePragmas);
    // Every statement prepared once per connection (reusingStatements).
    const dialect = new SqliteDialect({ database: reusingStatements(database) });
    return sqliteWarehouse(database, dialect, target, describeWarehouse(target), {
      before: async () => checkpointOnClose(database),
    });
  }
  if (target.schema && !o.existing && !o.readOnly) {
    const admin = new BoundedClient({ connectionString: target.connectionString });
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
    // Each new connection bounded by CONNECT_TIMEOUT_MS; not the pool's own option, which would
    // also fail a query that waits that long for a busy pool's free connection.
    Client: BoundedClient,
    max: 10,
    types: pgTypes,
    // A schema that is not there (read-only) leaves search_path naming nothing: no table is found.
    ...sessionOptions([
      ...(target.schema ? [`search_path="${target.schema}"`] : []),
      ...(o.readOnly ? ["default_transaction_read_only=on"] : []),
    ]),
  });
  // An idle connection ended from outside (an administrator, a restart) is dropped and replaced by
  // the pool; unheard, the event would end the process.
  pool.on("error", () => {});
  const db = new Kysely<AnyDB>({ dialect: new WarehousePostgresDialect({ pool }) });
  await sql`select 1`.execute(db).catch(async (err: unknown) => {
    await db.destroy();
    throw isMissingDatabase(err) ? missingPostgres(target) : err;
  });
  const adapter = postgresAdapter(target.schema);
  registerAdapter(db, adapter);
  const readUrl = o.readUrl ?? (process.env["SKILLSYNC_READ_DATABASE_URL"]?.trim() || undefined);
  const reader = readerSlot(target, pool, readUrl);
  return {
    db,
    adapter,
    raw: { kind: "postgres", pool },
    transaction: (fn) => pgTransaction(pool, adapter, fn),
    target,
    description: describeWarehouse(target),
    reader,
    close: async () => {
      await reader.close();
      await db.destroy();
    },
  };
}

/** Postgres settings every session of the pool starts with (`-c name=value`). */
function sessionOptions(settings: string[]): { options?: string } {
  return settings.length ? { options: settings.map((x) => `-c ${x}`).join(" ") } : {};
}

/**
 * A SQLite warehouse opened to read (`plan`): neither created nor switched to WAL, and its
 * connection refuses writes (query_only). Reading a WAL database makes -wal and -shm files, and
 * only a connection that may write removes them as it closes last: so the connection is a writable
 * one, held to reads, unless a -wal file is there already (another process has the file open, or
 * crashed with it open), whose WAL a read-only connection leaves to that process to fold into the
 * file. A file that is not there reads as an empty warehouse: an in-memory database stands in.
 */
function openSqliteToRead(target: Extract<WarehouseTarget, { kind: "sqlite" }>): Warehouse {
  const there = target.path === ":memory:" || existsSync(target.path);
  const path = there ? target.path : ":memory:";
  const onFile = path === ":memory:" ? {} : { fileMustExist: true, readonly: existsSync(`${path}-wal`) };
  const database = sqliteConnection(target, path, onFile, (d) => {
    d.pragma("query_only = 1");
    // Reads the header: a file that is not a database fails here rather than at the first read.
    d.pragma("schema_version");
  });
  const description = `${describeWarehouse(target)}${there ? "" : " (not there yet)"}`;
  // Reads of the stand-in run on its own connection: no other process could open it.
  return sqliteWarehouse(database, new SqliteDialect({ database }), { kind: "sqlite", path }, description, {
    // The reader processes of the file first, so that this connection is the last to close.
    before: path === ":memory:" ? undefined : () => closeSqliteReaders(path),
  });
}

/**
 * A SQLite connection to `path`, set up by `setUp`; closed again, and a ConfigurationError naming
 * --db, when the file is not a SQLite database (a CSV given as --db, say).
 */
function sqliteConnection(
  target: Extract<WarehouseTarget, { kind: "sqlite" }>,
  path: string,
  options: SQLite.Options,
  setUp: (database: SQLite.Database) => void,
): SQLite.Database {
  const database = new SQLite(path, { timeout: BUSY_TIMEOUT_MS, ...options });
  try {
    setUp(database);
  } catch (err) {
    database.close();
    if (!isNotADatabase(err)) throw err;
    throw new ConfigurationError(
      `${target.path} is not a SQLite database; --db (or DATABASE_URL) takes a warehouse: a SQLite file, sqlite:PATH or postgres://…`,
    );
  }
  return database;
}

/** The warehouse over one SQLite connection. */
function sqliteWarehouse(
  database: SQLite.Database,
  dialect: SqliteDialect,
  target: Extract<WarehouseTarget, { kind: "sqlite" }>,
  description: string,
  o: { before?: (() => Promise<void>) | undefined } = {},
): Warehouse {
  const db = new Kysely<AnyDB>({ dialect });
  const adapter = sqliteAdapter(database);
  registerAdapter(db, adapter);
  const bulk = sqliteBulkWriter(database);
  return {
    db,
    adapter,
    raw: { kind: "sqlite", database },
    // One connection: statements run directly on it from inside Kysely's transaction are part of it.
    transaction: (fn) => db.transaction().execute((trx) => fn({ db: trx, bulk })),
    target,
    description,
    reader: undefined,
    async close() {
      await o.before?.();
      await db.destroy();
    },
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
  const client = new BoundedClient({ connectionString: target.connectionString });
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
