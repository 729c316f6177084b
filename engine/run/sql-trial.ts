import { ident } from "../../connectors/warehouse/bulk.js";
import { resolveRead } from "../../connectors/warehouse/explain.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { inputQueries } from "../define/inputs.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { ensureViews } from "../load/ensure-views.js";
import { ensurePipelineTables, tablesToMake } from "./make-tables.js";

/** Thrown at the end of a trial so that its transaction is rolled back. */
const ROLL_BACK = Symbol("roll back the trial");

/**
 * Checks the SQL a run hands the warehouse — the views its pipelines declare and, given their
 * params, their input queries — before anything is made: one transaction makes the tables and views
 * as `makeTables` would, has the database resolve (never run) each input query, and is always rolled back. A bad view or query
 * is the pipeline file's ValidationError (exit 2) and the warehouse stays as it was: no table,
 * column, index or view of that run. With nothing to check no transaction is opened.
 *
 * @example await checkPipelineSql(w, [loadPipeline("my-views.yaml")]); // throws: views.top: cannot be created: no such column: x
 */
export async function checkPipelineSql(
  w: Warehouse,
  pipelines: LoadedPipeline[],
  params?: ParamValues[],
): Promise<void> {
  const make = tablesToMake(pipelines);
  const queries = pipelines.map((p, i) => (params ? inputQueries(p, params[i] ?? {}) : []));
  if (!make.views.some((p) => p.views.length) && !queries.some((q) => q.length)) return;
  try {
    await w.db.transaction().execute(async (trx) => {
      const trial: Warehouse = { ...w, db: trx };
      if (!(await madeInTrial(trial, make.tables))) throw ROLL_BACK;
      for (const p of make.views) {
        await ensureViews(trial, p, make.tables);
        for (const v of p.views) await resolveView(trial, p, v.name);
      }
      for (const [i, p] of pipelines.entries()) {
        for (const q of queries[i] ?? []) await resolveInput(trial, p, q.compile(trx));
      }
      throw ROLL_BACK;
    });
  } catch (err) {
    if (err !== ROLL_BACK) throw err;
  }
}

/**
 * The trial's tables. Failing to make them (another process making the same at that moment) is
 * no verdict on the file: the trial ends there, and `makeTables` meets and reports it as it does.
 */
async function madeInTrial(trial: Warehouse, tables: LoadedPipeline[]): Promise<boolean> {
  try {
    for (const p of tables) await ensurePipelineTables(trial, p);
    return true;
  } catch {
    return false;
  }
}

/** SQLite makes a view whose columns or tables do not exist, and fails only where it is read: read it. */
async function resolveView(trial: Warehouse, p: LoadedPipeline, view: string): Promise<void> {
  try {
    await resolveRead(trial.adapter, trial.db, `select * from ${ident(view)}`, [], `view ${view}`);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(`pipeline file ${p.file}`, [
      { path: ["views", view], message: `cannot be created: ${err.issues.map((i) => i.message).join("; ")}` },
    ]);
  }
}

async function resolveInput(
  trial: Warehouse,
  p: LoadedPipeline,
  q: { sql: string; parameters: readonly unknown[] },
): Promise<void> {
  try {
    await resolveRead(trial.adapter, trial.db, q.sql, q.parameters, `pipeline file ${p.file}`);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // The words of the run's own message (engine/define/inputs.ts), so both read alike.
    throw new ValidationError(`pipeline file ${p.file}`, [
      {
        path: ["input", "from", "sql"],
        message: `the query failed: ${err.issues.map((i) => i.message).join("; ")}`,
      },
    ]);
  }
}
