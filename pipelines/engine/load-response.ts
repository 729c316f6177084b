import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import type { PlannedCall } from "./calls.js";
import { insertRejects, markLoaded } from "./ledger.js";
import type { LoadedPipeline } from "./load.js";
import { deleteChildren, writeRows } from "./loader.js";
import type { CompiledMapping } from "./mapping.js";
import type { ParamValues } from "./params.js";

/**
 * Normalises one response and writes its rows, its rejects, its load marker and whatever the
 * caller adds (`also`: the ledger entry, the stored response) in ONE transaction: a crash leaves
 * either all of it or none.
 */
export async function loadResponse(
  w: Warehouse,
  c: { pipeline: LoadedPipeline; params: ParamValues; mapping: CompiledMapping },
  call: PlannedCall,
  data: unknown,
  observedAt: string,
  runId: string,
  also: (trx: Kysely<AnyDB>) => Promise<void>,
): Promise<{ rows: number; rejected: number }> {
  const { mapping, pipeline } = c;
  const n = mapping.normalise(data, {
    input: call.input,
    request: call.body,
    params: c.params,
    observedAt,
    runId,
    skill: pipeline.skill,
  });
  // Columns the data brings are added before the transaction: DDL racing inside one would abort it.
  const tables = mapping.infer ? await mapping.infer.apply(w, n) : mapping;
  let rows = 0;
  await w.transaction(async (tx) => {
    await also(tx.db);
    const parents = n.rows.get(mapping.table.name) ?? [];
    rows += await writeRows(tx, tables.table, parents, mapping.mode);
    for (const child of tables.children) {
      if (mapping.mode === "merge") await deleteChildren(tx, child, tables.table.key, parents);
      rows += await writeRows(tx, child, n.rows.get(child.name) ?? [], mapping.mode);
    }
    await insertRejects(tx.db, runId, pipeline.name, call.hash, n.rejects);
    await markLoaded(tx.db, runId, pipeline.name, call.hash, rows);
  });
  return { rows, rejected: n.rejects.length };
}
