import type { Kysely } from "kysely";
import type { AnyDB, WarehouseTx } from "../../connectors/warehouse/open.js";
import type { RecordsSpec } from "../../schema/pipeline.js";
import type { TableDef } from "../../schema/table.js";
import type { Row } from "../normalize/row.js";

/** The modes that write rows as they come (`history` writes versions: history.ts). */
type Mode = Exclude<RecordsSpec["mode"], "history">;

/**
 * Writes typed rows into a table inside the caller's transaction, through the warehouse's bulk
 * path (COPY in Postgres, prepared statements in SQLite): `merge` and `replace` upsert on a unique
 * key (the last row of a key in the batch wins; replace drops other runs' rows when the run
 * ends), `append` inserts every row. Returns the rows written.
 *
 * @example
 * await w.transaction((tx) => writeRows(tx, mapping.table, rows, "merge"));
 */
export async function writeRows(tx: WarehouseTx, def: TableDef, rows: Row[], mode: Mode): Promise<number> {
  if (!rows.length) return 0;
  return tx.bulk.write(def, rows, upserts(def, mode) ? "upsert" : "insert");
}

/** Whether rows of `def` written in `mode` replace the row of their key (else every row is added). */
export function upserts(def: TableDef, mode: RecordsSpec["mode"]): boolean {
  return mode !== "append" && def.key.length > 0 && def.unique !== false;
}

/** Removes the children of the parents about to be merged, so a merge replaces each parent's child rows. */
export async function deleteChildren(
  tx: WarehouseTx,
  child: TableDef,
  parentKey: readonly string[],
  parents: Row[],
): Promise<void> {
  if (!parentKey.length || !parents.length) return;
  await tx.bulk.deleteMatching(child, parentKey, parents);
}

/** `replace` mode: when a run has loaded all its pages, rows of earlier runs go. */
export async function dropOtherRuns(trx: Kysely<AnyDB>, table: string, runId: string): Promise<void> {
  await trx.deleteFrom(table).where("run_id", "<>", runId).execute();
}
