import type SQLite from "better-sqlite3";
import type { SyncDriver } from "../adapter.js";
import { prepared } from "./bulk.js";

/**
 * better-sqlite3 as a `SyncDriver`: `BEGIN IMMEDIATE` transactions run synchronously, and
 * statements prepared once per connection and text, from the same cache as the bulk writer's and
 * Kysely's (open.ts).
 */
export function sqliteSyncDriver(database: SQLite.Database): SyncDriver {
  // One wrapper for every transaction: better-sqlite3 builds five functions per `transaction()`,
  // and a run reserves its calls in a few thousand of them.
  const wrapped = database.transaction((fn: () => unknown) => fn());
  return {
    immediate: <T>(fn: () => T) => wrapped.immediate(fn) as T,
    prepare: (text) => prepared(database, text),
    jsonArrayValues: (param) => `(select value from json_each(@${param}))`,
  };
}
