/**
 * What a database error means, in one place: pg reports Postgres's SQLSTATE as `code` ("23505"),
 * better-sqlite3 SQLite's result code ("SQLITE_BUSY", "SQLITE_CONSTRAINT_UNIQUE"). Each predicate
 * names the situation its callers handle; the codes behind it are listed here and nowhere else.
 */

// Postgres SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const PG_UNIQUE_VIOLATION = "23505";
const PG_DUPLICATE_TABLE = "42P07"; // also a duplicate index or view: any relation
const PG_DUPLICATE_COLUMN = "42701";
const PG_INVALID_TABLE_DEFINITION = "42P16";
const PG_DEADLOCK_DETECTED = "40P01";
const PG_INVALID_SCHEMA_NAME = "3F000";
const PG_UNDEFINED_TABLE = "42P01";
const PG_INSUFFICIENT_PRIVILEGE = "42501";
const PG_READ_ONLY_TRANSACTION = "25006";
const PG_INVALID_CATALOG_NAME = "3D000"; // the database does not exist
const PG_INVALID_AUTHORIZATION = "28000"; // no such role, or pg_hba refuses it
const PG_INVALID_PASSWORD = "28P01";
// The server ended the session (pg_terminate_backend, a shutdown, a crash), or the link broke.
const PG_CONNECTION_ENDED = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006"]);

/** The driver's code of an error ("" when it has none). */
export function driverErrorCode(err: unknown): string {
  return err && typeof err === "object" && "code" in err ? String(err.code) : "";
}

/**
 * A unique index refused the row: another writer inserted the same key first. SQLite: any
 * SQLITE_CONSTRAINT* code (the inserts that ask this have only their unique index to break).
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = driverErrorCode(err);
  return code === PG_UNIQUE_VIOLATION || code.startsWith("SQLITE_CONSTRAINT");
}

/** SQLite: another process held the write lock past busy_timeout, or this read snapshot went stale. */
export function isBusy(err: unknown): boolean {
  const code = driverErrorCode(err);
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_SNAPSHOT";
}

/** Postgres aborted this transaction to break a deadlock with another one. */
export function isDeadlock(err: unknown): boolean {
  return driverErrorCode(err) === PG_DEADLOCK_DETECTED;
}

const CATALOG_RACES = new Set([
  PG_UNIQUE_VIOLATION,
  PG_DUPLICATE_TABLE,
  PG_INVALID_SCHEMA_NAME,
  PG_UNDEFINED_TABLE,
]);

/**
 * Postgres: another session created the same table at the same moment (its catalog's unique
 * index, or a duplicate table), or dropped a schema or table this statement was reading. Worth
 * trying again. (Other sessions' schemas no longer reach a migration: the warehouse's
 * introspection reads its own schema only, postgres/introspector.ts.)
 */
export function isCatalogRace(err: unknown): boolean {
  return CATALOG_RACES.has(driverErrorCode(err));
}

const CREATED_MEANWHILE = new Set([
  PG_DUPLICATE_TABLE,
  PG_DUPLICATE_COLUMN,
  PG_UNIQUE_VIOLATION,
  PG_INVALID_TABLE_DEFINITION,
]);

/**
 * Another process created the same table, column or index first (`create … if not exists` and
 * `add column` racing). SQLite says so only in the message.
 */
export function isCreatedMeanwhile(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : "";
  return CREATED_MEANWHILE.has(driverErrorCode(err)) || /duplicate column name|already exists/i.test(msg);
}

/**
 * Another run created or replaced the same view at the same moment ("already exists", Postgres's
 * "tuple concurrently updated" on the view's catalog row, or a duplicate key in the catalog).
 */
export function isViewCreatedMeanwhile(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /already exists|tuple concurrently updated|duplicate key/i.test(msg);
}

/**
 * Another process set the same comment at the same moment (Postgres's "tuple concurrently updated"
 * on its pg_description row, or a duplicate key when both added it): it wrote the same text.
 */
export function isCommentedMeanwhile(err: unknown): boolean {
  return isViewCreatedMeanwhile(err);
}

/** Postgres: the role may not do this (a least-privilege reader creating a schema, say). */
export function isNotPermitted(err: unknown): boolean {
  const code = driverErrorCode(err);
  return code === PG_INSUFFICIENT_PRIVILEGE || code === PG_READ_ONLY_TRANSACTION;
}

/** SQLite: the file opened is not a SQLite database (a CSV given as --db, say). */
export function isNotADatabase(err: unknown): boolean {
  return driverErrorCode(err) === "SQLITE_NOTADB";
}

/** Postgres: the URL names a database the server does not have. */
export function isMissingDatabase(err: unknown): boolean {
  return driverErrorCode(err) === PG_INVALID_CATALOG_NAME;
}

/** Postgres refused the login itself: an unknown role, a wrong password, or pg_hba.conf said no. */
export function isLoginRefused(err: unknown): boolean {
  const code = driverErrorCode(err);
  return code === PG_INVALID_AUTHORIZATION || code === PG_INVALID_PASSWORD;
}

/**
 * The network error under a failed connection (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`…), or "".
 * Node reports a host with several addresses as an AggregateError of one error per address.
 */
export function connectionErrorCode(err: unknown): string {
  const code = driverErrorCode(err);
  if (/^E[A-Z]+$/.test(code)) return code;
  const inner = err instanceof AggregateError ? err.errors[0] : undefined;
  return inner ? connectionErrorCode(inner) : "";
}

/**
 * Postgres: the connection under a statement was lost — the server ended the session or the
 * network dropped it. pg says so with a SQLSTATE, a socket code, or only in its message.
 */
export function isConnectionLost(err: unknown): boolean {
  const code = driverErrorCode(err);
  if (PG_CONNECTION_ENDED.has(code) || code === "ECONNRESET" || code === "EPIPE") return true;
  const msg = err instanceof Error ? err.message : "";
  return /^Connection terminated|Client has encountered a connection error and is not queryable/.test(msg);
}

// SQLite's own, and the file system's when the file's folder cannot be made.
const CANNOT_OPEN = new Set([
  "SQLITE_CANTOPEN",
  "EACCES",
  "EPERM",
  "EROFS",
  "ENOTDIR",
  "EISDIR",
  "EEXIST",
  "ENOENT",
]);

/** SQLite could not open the file at all: a folder, a path it may not read, create or make a folder for. */
export function isCannotOpen(err: unknown): boolean {
  return CANNOT_OPEN.has(driverErrorCode(err));
}
