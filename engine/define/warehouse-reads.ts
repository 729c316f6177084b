import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { BatchReadOptions, ReadOnlyOptions } from "../../connectors/warehouse/read-only.js";
import { readAsReader, readBatchesAsReader } from "../../store/reader-db.js";

/**
 * The one read-only path as every reader of the warehouse takes it — `skillsync sql`, a pipeline's
 * input `sql:`, the server's table views, Sheets pushes, the MCP tools, the console (docs/read-only.md):
 * the statement checked, then run on SQLite over a read-only connection and on Postgres logged in
 * as the warehouse's reader role, made on first use where the owner may (store/reader-db.ts).
 *
 * @example await readWarehouse(w, "select count(*) as n from marketplace_search_results")
 */
export function readWarehouse(
  w: Warehouse,
  text: string,
  o: Omit<ReadOnlyOptions, "login"> = {},
): Promise<Record<string, unknown>[]> {
  return readAsReader(w, text, o);
}

/**
 * The same read-only path, read a batch at a time and without a row cap (`skillsync export`).
 *
 * @example await readWarehouseBatches(w, "select * from t", { onBatch: (rows) => sink.write(rows) })
 */
export function readWarehouseBatches(
  w: Warehouse,
  text: string,
  o: Omit<BatchReadOptions, "login">,
): Promise<number> {
  return readBatchesAsReader(w, text, o);
}
