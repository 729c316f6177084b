import type SQLite from "better-sqlite3";
import type { ReadPath } from "../read-timeout.js";
import { sqliteReadBatches } from "./read-batches.js";
import { sqliteReadOnly } from "./read-only.js";

/** The read path of the SQLite file at `path` (":memory:": reads on the warehouse's own connection). */
export function sqliteReadPath(database: SQLite.Database, path: string): ReadPath {
  return {
    rows: (text, o) => sqliteReadOnly(database, path, text, o),
    batches: (text, o) => sqliteReadBatches(database, path, text, o),
  };
}
