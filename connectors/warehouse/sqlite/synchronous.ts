import type SQLite from "better-sqlite3";
import type { SyncDriver } from "../adapter.js";
import { prepared } from "./bulk.js";

/**
 * better-sqlite3 as a `SyncDriver`: `BEGIN IMMEDIATE` transactions run synchronously, and
 * statements prepared once per connection and text, from the same cache as the bulk writer's and
 * Kysely's (open.ts).
 */
export function sqliteSyncDriver(database: SQLite.Database): SyncDriver {
  return {
    immediate: (fn) => database.transaction(fn).immediate(),
    prepare: (text) => prepared(database, text),
  };
}
