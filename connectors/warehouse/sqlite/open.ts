import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, type SqliteDatabase, SqliteDialect } from "kysely";
import { ConfigurationError } from "../../../core/errors.js";
import { type AnyDB, registerAdapter } from "../adapter.js";
import { isBusy, isCannotOpen, isNotADatabase } from "../driver-errors.js";
import { describeWarehouse, NOT_THERE, URL_SETTING, type WarehouseTarget } from "../url.js";
import type { Warehouse } from "../warehouse.js";
import { sqliteAdapter } from "./adapter.js";
import { prepared, sqliteBulkWriter } from "./bulk.js";
import { checkpointOnClose } from "./checkpoint.js";
import { closeSqliteReaders } from "./read-only.js";
import { sqliteReadPath } from "./read-path.js";

type SqliteTarget = Extract<WarehouseTarget, { kind: "sqlite" }>;

/**
 * Opens the SQLite warehouse of a file (open.ts's `openWarehouse`): made with its folders unless
 * `readOnly`; `existing`: it must be there already.
 */
export async function openSqlite(
  target: SqliteTarget,
  o: { existing?: boolean | undefined; readOnly?: boolean | undefined },
): Promise<Warehouse> {
  try {
    if (o.existing) mustExist(target);
    return o.readOnly ? openToRead(target) : openToWrite(target);
  } catch (err) {
    throw openFailure(err, target);
  }
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

/** The warehouse file made (with its folders) if missing, in WAL, every statement prepared once. */
function openToWrite(target: SqliteTarget): Warehouse {
  if (target.path !== ":memory:") mkdirSync(dirname(target.path), { recursive: true });
  const database = connection(target, target.path, {}, setWarehousePragmas);
  // Every statement prepared once per connection (reusingStatements).
  const dialect = new SqliteDialect({ database: reusingStatements(database) });
  return sqliteWarehouse(database, dialect, target, describeWarehouse(target), {
    before: async () => checkpointOnClose(database),
  });
}

/**
 * A SQLite warehouse opened to read (`plan`): neither created nor switched to WAL, and its
 * connection refuses writes (query_only). Reading a WAL database makes -wal and -shm files, and
 * only a connection that may write removes them as it closes last: so the connection is a writable
 * one, held to reads, unless a -wal file is there already (another process has the file open, or
 * crashed with it open), whose WAL a read-only connection leaves to that process to fold into the
 * file. A file that is not there reads as an empty warehouse: an in-memory database stands in.
 */
function openToRead(target: SqliteTarget): Warehouse {
  const there = target.path === ":memory:" || existsSync(target.path);
  const path = there ? target.path : ":memory:";
  const onFile = path === ":memory:" ? {} : { fileMustExist: true, readonly: existsSync(`${path}-wal`) };
  const database = connection(target, path, onFile, (d) => {
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
function connection(
  target: SqliteTarget,
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
  target: SqliteTarget,
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
    readPath: sqliteReadPath(database, target.path),
    async close() {
      await o.before?.();
      await db.destroy();
    },
  };
}

/**
 * For commands that only read: the warehouse must be there already. A mistyped path would
 * otherwise become a new empty warehouse (and its folders) that answers every question with nothing.
 */
function mustExist(target: SqliteTarget): void {
  if (target.path === ":memory:" || existsSync(target.path)) return;
  throw new ConfigurationError(`no warehouse at ${target.path} — ${NOT_THERE}`);
}

/**
 * A file that cannot be opened, as a configuration error (exit 2) that says why and which setting
 * named it; any other error as it is.
 */
function openFailure(err: unknown, target: SqliteTarget): unknown {
  if (!isCannotOpen(err)) return err;
  return new ConfigurationError(
    `cannot open the SQLite warehouse ${describeWarehouse(target)}: ${cannotOpenWhy(target.path)}; fix ${URL_SETTING}`,
    { cause: err },
  );
}

function cannotOpenWhy(path: string): string {
  try {
    if (statSync(path).isDirectory()) return "it is a folder; give a file path such as ./skillsync.db";
    return "the file cannot be opened for reading and writing (check its permissions)";
  } catch {
    return "its folder cannot be created or written (check the path and permissions)";
  }
}
