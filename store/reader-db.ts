import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
} from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import {
  type BatchReadOptions,
  type ReadOnlyOptions,
  readOnly,
  readOnlyBatches,
} from "../connectors/warehouse/read-only.js";
import { SkillsyncError } from "../core/errors.js";
import { readerLogin } from "./reader-login.js";

/**
 * A statement on the read-only path as the reader login: SQLite's read-only connection, and on
 * Postgres the warehouse's reader role (made on first use where the owner may). The one place
 * that wires the login in; `readWarehouse` (engine/define/warehouse-reads.ts) is this.
 *
 * @example await readAsReader(w, "select count(*) as n from marketplace_search_results")
 */
export function readAsReader(
  w: Warehouse,
  text: string,
  o: Omit<ReadOnlyOptions, "login"> = {},
): Promise<Record<string, unknown>[]> {
  return readOnly(w, text, { ...o, login: () => readerLogin(w) });
}

/**
 * The same, read a batch at a time and without a row cap (`skillsync export`).
 *
 * @example await readBatchesAsReader(w, "select * from t", { onBatch: (rows) => sink.write(rows) })
 */
export function readBatchesAsReader(
  w: Warehouse,
  text: string,
  o: Omit<BatchReadOptions, "login">,
): Promise<number> {
  return readOnlyBatches(w, text, { ...o, login: () => readerLogin(w) });
}

/**
 * Runs one compiled Kysely query on the read-only path as the reader, with its bound parameters:
 * the one place every console read goes through.
 *
 * @example await readCompiled(w, db.selectFrom("t").selectAll().compile(), "console runs")
 */
export async function readCompiled<R>(w: Warehouse, q: CompiledQuery<R>, source: string): Promise<R[]> {
  const rows = await readAsReader(w, q.sql, { params: q.parameters, source });
  return rows as R[];
}

const refused = (): never => {
  throw new SkillsyncError("READ_ONLY", "the console's reads run on the read-only path: no transaction");
};

/**
 * A Kysely instance of the warehouse's dialect (its compiler, adapter and plugins) whose every
 * query runs through `readCompiled`: the store's own read functions (run detail, loads, budgets)
 * then run as the reader, their SQL written once.
 */
export function readerDb(w: Warehouse, source: string): Kysely<AnyDB> {
  const owner = w.db.getExecutor();
  const connection: DatabaseConnection = {
    executeQuery: async <R>(q: CompiledQuery): Promise<QueryResult<R>> => ({
      rows: (await readCompiled(w, q, source)) as R[],
    }),
    streamQuery: refused,
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: refused,
    commitTransaction: refused,
    rollbackTransaction: refused,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const dialect: Dialect = {
    createAdapter: () => owner.adapter,
    createDriver: () => driver,
    createQueryCompiler: () => ({ compileQuery: (node, id) => owner.compileQuery(node, id) }),
    createIntrospector: () => w.db.introspection,
  };
  return new Kysely<AnyDB>({ dialect, plugins: [...owner.plugins] });
}

/**
 * The warehouse as the store's read functions take it, its `db` on the read-only path; a write
 * there fails the read-only check, and a transaction is refused.
 */
export function readerWarehouse(w: Warehouse, source: string): Warehouse {
  return { ...w, db: readerDb(w, source), transaction: async () => refused() };
}
