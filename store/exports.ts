import { sql } from "kysely";
import type { Warehouse } from "../connectors/warehouse/open.js";

const TABLE = "skillsync_exports";

/** The last export of a source to a file, as `export --since-last` reads it. */
export interface ExportRecord {
  /** The highest load id the export covered (null: there was no load yet). */
  throughLoad: number | null;
  rows: number;
  exportedAt: string;
}

/** The last export of `source` (`table NAME`, `sql HASH`) to `target` (an absolute path), if any. */
export async function lastExport(
  w: Warehouse,
  target: string,
  source: string,
): Promise<ExportRecord | undefined> {
  const r = await w.db
    .selectFrom(TABLE)
    .select(["through_load", "rows_written", "exported_at"])
    .where("target", "=", target)
    .where("source", "=", source)
    .executeTakeFirst();
  if (!r) return undefined;
  const at = r.exported_at;
  return {
    throughLoad: r.through_load === null ? null : Number(r.through_load),
    rows: Number(r.rows_written),
    exportedAt: at instanceof Date ? at.toISOString() : String(at),
  };
}

/** Records an export (replacing the previous record of the same file and source). */
export async function recordExport(
  w: Warehouse,
  e: { target: string; source: string; format: string; throughLoad: number | null; rows: number },
): Promise<void> {
  const values = {
    target: e.target,
    source: e.source,
    format: e.format,
    through_load: e.throughLoad,
    rows_written: e.rows,
    exported_at: new Date().toISOString(),
  };
  await w.db
    .insertInto(TABLE)
    .values(values)
    .onConflict((oc) =>
      oc.columns(["target", "source"]).doUpdateSet({
        format: e.format,
        through_load: e.throughLoad,
        rows_written: e.rows,
        exported_at: values.exported_at,
      }),
    )
    .execute();
}

/** The highest load id the warehouse has given (null: none yet). */
export async function highestLoadId(w: Warehouse): Promise<number | null> {
  const r = await sql<{ n: number | null }>`select max(id) as n from skillsync_loads`.execute(w.db);
  const n = r.rows[0]?.n;
  return n === null || n === undefined ? null : Number(n);
}
