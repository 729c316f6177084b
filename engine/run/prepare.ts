import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { durationMs } from "../../schema/pipeline.js";
import { migrateToLatest } from "../../store/migrate.js";
import { type ParamValue, type ParamValues, resolveParams } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { type CompiledMapping, compileMapping } from "../normalize/mapping.js";
import { checkTablesFit, makeTables } from "./make-tables.js";
import { checkPipelineSql } from "./sql-trial.js";

/** A pipeline ready to run: its params resolved, its mapping compiled. */
export interface Compiled {
  pipeline: LoadedPipeline;
  params: ParamValues;
  mapping: CompiledMapping;
  freshnessMs: number;
}

/** Splits `--param` values among pipelines; a param no pipeline declares is an error. */
function paramsFor(pipelines: LoadedPipeline[], given: Record<string, ParamValue[]>): ParamValues[] {
  const unknown = Object.keys(given).filter((k) => !pipelines.some((p) => k in p.params));
  if (unknown.length) {
    const known = [...new Set(pipelines.flatMap((p) => Object.keys(p.params)))];
    throw new ValidationError(
      "--param",
      unknown.map((k) => ({
        path: [k],
        message: `no pipeline of this run takes it (they take ${known.join(", ") || "none"})`,
      })),
    );
  }
  return pipelines.map((p) =>
    resolveParams(
      p.params,
      Object.fromEntries(Object.entries(given).filter(([k]) => k in p.params)),
      `--param for ${p.name}`,
    ),
  );
}

/** The pipelines with their params resolved and mappings compiled; the warehouse is not touched. */
export function compilePipelines(
  pipelines: LoadedPipeline[],
  given: Record<string, ParamValue[]>,
  check?: (params: ParamValues[]) => void,
): Compiled[] {
  const params = paramsFor(pipelines, given);
  check?.(params);
  return pipelines.map((pipeline, i) => ({
    pipeline,
    params: params[i]!,
    mapping: compileMapping(pipeline.records),
    freshnessMs: durationMs(pipeline.freshness),
  }));
}

/**
 * Makes the tables the pipelines write and read (`makeTables`), so runs and SQL inputs can read
 * them — once their views and input queries are known to work (`checkPipelineSql`): a file
 * refused for its SQL leaves nothing behind.
 */
export async function preparePipelines(
  w: Warehouse,
  pipelines: LoadedPipeline[],
  given: Record<string, ParamValue[]>,
  check?: (params: ParamValues[]) => void,
): Promise<Compiled[]> {
  const compiled = compilePipelines(pipelines, given, check);
  // Before the warehouse is migrated or its SQL tried: a table that cannot take the rows refuses the run.
  await checkTablesFit(w, pipelines);
  await checkPipelineSql(
    w,
    pipelines,
    compiled.map((c) => c.params),
  );
  await migrateToLatest(w);
  await makeTables(w, pipelines);
  return compiled;
}
