import type { Warehouse } from "../connectors/warehouse/open.js";

/**
 * The latest load of the pipeline that made load `id`: `id` itself unless that pipeline has loaded
 * again since. A load that found every key unchanged writes no row into a history table, so the
 * table's own greatest `load_id` cannot tell it came; `skillsync_loads` has a row for every load.
 *
 * @example await latestLoadOfSamePipeline(w, 12) // 14: two later loads of the same pipeline
 */
export async function latestLoadOfSamePipeline(w: Warehouse, id: number): Promise<number> {
  const row = await w.db
    .selectFrom("skillsync_loads as made")
    .innerJoin("skillsync_loads as later", "later.pipeline", "made.pipeline")
    .select((eb) => eb.fn.max("later.id").as("latest"))
    .where("made.id", "=", id)
    .executeTakeFirst();
  const latest = row?.latest;
  return latest === null || latest === undefined ? id : Math.max(id, Number(latest));
}
