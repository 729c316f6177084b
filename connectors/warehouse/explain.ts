import type { Kysely } from "kysely";
import { ValidationError } from "../../core/errors.js";
import type { AnyDB, WarehouseAdapter } from "./adapter.js";
import { checkReadStatement } from "./read-only.js";

/**
 * Whether a read would resolve on this connection, without running or planning it: the read-only
 * path's checks, then `resolveStatement` (tables, columns, types). Nothing in the statement runs,
 * so a caller holding more privileges than the read path's login (the run's own connection, in a
 * trial) lends them to nothing. The database's reason is a ValidationError from `source`.
 *
 * @example await resolveRead(adapter, trx, "select x from missing", [], "input sql") // throws: no such table: missing
 */
export async function resolveRead(
  adapter: WarehouseAdapter,
  db: Kysely<AnyDB>,
  text: string,
  params: readonly unknown[],
  source: string,
): Promise<void> {
  const checked = checkReadStatement(text, adapter.lexicon, source);
  try {
    await adapter.resolveStatement(db, checked.text, params);
  } catch (err) {
    throw new ValidationError(source, [{ path: [], message: (err as Error).message }], { cause: err });
  }
}
