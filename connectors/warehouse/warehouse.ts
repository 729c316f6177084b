import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import type pg from "pg";
import type { AnyDB, WarehouseAdapter } from "./adapter.js";
import type { WarehouseTx } from "./bulk.js";
import type { ReadPath } from "./read-timeout.js";
import type { WarehouseTarget } from "./url.js";

/** The driver under Kysely, for the bulk paths and the benchmark's raw reference. */
type RawDriver = { kind: "sqlite"; database: SQLite.Database } | { kind: "postgres"; pool: pg.Pool };

/** An open warehouse (open.ts): Kysely, its adapter, its transactions and its read path. */
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
   * Where the read-only path (read-only.ts) runs a checked statement: on Postgres as the reader
   * login, opened on first use — never the owner's session unless that login can only read
   * (postgres/reader.ts); on SQLite in a reader process that opens the file read-only.
   */
  readonly readPath: ReadPath;
  close(): Promise<void>;
}
