import type SQLite from "better-sqlite3";

/**
 * Folds the WAL into the database file before the warehouse's connection closes, so that the file
 * alone holds every table (copied, attached, opened by a tool that does not look for `-wal`).
 * SQLite folds it itself only when the last connection to the file closes, and the read-only
 * reader processes (read-only.ts) may outlive this one and cannot.
 *
 * Never waits and never fails: while another process writes or reads an older snapshot, SQLite
 * folds what it can and leaves the rest to a later checkpoint; the commits are safe in the WAL either way.
 */
export function checkpointOnClose(database: SQLite.Database): void {
  try {
    // busy_timeout would make the checkpoint wait up to 15 s for another process's transaction.
    database.pragma("busy_timeout = 0");
    database.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // A file gone read-only or an I/O error: closing must still end the command that committed its work.
  }
}
