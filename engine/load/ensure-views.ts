import { createHash } from "node:crypto";
import { isBusy, isDeadlock, isViewCreatedMeanwhile } from "../../connectors/warehouse/driver-errors.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { SkillsyncError, ValidationError } from "../../core/errors.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";

/**
 * Makes view `name` show `body` unless it already does (its mark is the body's hash); another
 * process making the same view at the same moment is not an error.
 */
export async function ensureView(w: Warehouse, name: string, body: string): Promise<void> {
  const mark = `skillsync view ${createHash("sha256").update(body).digest("hex").slice(0, 16)}`;
  try {
    await w.adapter.ensureView(w.db, name, body, mark);
  } catch (err) {
    if (!isViewCreatedMeanwhile(err)) throw err;
  }
}

/**
 * Creates the views a pipeline declares, and re-creates a view whose declared SQL changed; a view
 * the warehouse already has as declared is left alone. Each must be one SELECT.
 *
 * Every run ensures its pipelines' views (and those of the pipelines it reads), so "left alone" matters: on Postgres,
 * replacing a view waits for every query reading it, and every later reader waits behind that
 * (a long analyst query would hold up each scheduled run). Which definition a view has is marked on
 * it: a comment inside the SQL SQLite keeps, a `COMMENT ON VIEW` on Postgres.
 */
export async function ensureViews(w: Warehouse, p: LoadedPipeline): Promise<void> {
  for (const v of p.views) {
    const body = v.sql.trim().replace(/;\s*$/, "");
    if (!/^(select|with)\b/i.test(body) || body.includes(";")) {
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: "must be a single SELECT statement" },
      ]);
    }
    try {
      await ensureView(w, v.name, body);
    } catch (err) {
      // Another process held the warehouse: not the pipeline file's fault (a run ensures the views
      // of the pipelines it reads, so that file may not even be part of this run).
      if (isBusy(err) || isDeadlock(err)) {
        throw new SkillsyncError(
          "WAREHOUSE_BUSY",
          `${w.description} stayed locked by another process while view ${v.name} was being created: run again once the other process has finished`,
          undefined,
          { cause: err },
        );
      }
      const msg = err instanceof Error ? err.message : String(err);
      throw new ValidationError(`pipeline file ${p.file}`, [
        { path: ["views", v.name], message: `cannot be created: ${msg}` },
      ]);
    }
  }
}
