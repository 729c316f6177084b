import { statSync } from "node:fs";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ensureTable } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import { durationMs } from "../../schema/pipeline.js";
import { migrateToLatest } from "../../store/migrate.js";
import { type ParamValue, type ParamValues, resolveParams } from "../define/params.js";
import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "../define/pipeline-file.js";
import { ensureViews } from "../load/ensure-views.js";
import { ensureHistoryViews, historyViewNames } from "../load/history-views.js";
import { type CompiledMapping, compileMapping } from "../normalize/mapping.js";

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

/** Creates every table the pipelines write (and the toolkit's own), so runs and SQL inputs can read them. */
export async function preparePipelines(
  w: Warehouse,
  pipelines: LoadedPipeline[],
  given: Record<string, ParamValue[]>,
  check?: (params: ParamValues[]) => void,
): Promise<Compiled[]> {
  const compiled = compilePipelines(pipelines, given, check);
  await migrateToLatest(w);
  await ensureBuiltinTables(w);
  for (const c of compiled) await ensurePipelineTables(w, c.pipeline, c.mapping);
  for (const c of compiled) await ensureViews(w, c.pipeline);
  return compiled;
}

/**
 * The tables and views a run of these pipelines makes before its first call (`preparePipelines`):
 * theirs and the built-in pipelines'.
 */
export function tablesMadeBy(pipelines: LoadedPipeline[]): string[] {
  const names = new Set<string>();
  for (const p of [...builtinPipelines(), ...pipelines]) {
    const mapping = compileMapping(p.records);
    for (const t of [mapping.table, ...mapping.children]) names.add(t.name);
    for (const v of historyViewNames(mapping)) names.add(v);
    for (const v of p.views) names.add(v.name);
  }
  return [...names];
}

async function ensurePipelineTables(
  w: Warehouse,
  p: LoadedPipeline,
  mapping = compileMapping(p.records),
): Promise<void> {
  await ensureTable(w, mapping.table);
  for (const child of mapping.children) await ensureTable(w, child);
  await ensureHistoryViews(w, mapping);
}

/**
 * The built-in pipelines' tables and views exist in every warehouse (after `skillsync migrate` or
 * any run), so chained SQL inputs and ad-hoc queries never meet a missing table.
 */
export async function ensureBuiltinTables(w: Warehouse): Promise<void> {
  const builtins = builtinPipelines();
  for (const p of builtins) await ensurePipelineTables(w, p);
  for (const p of builtins) await ensureViews(w, p);
}

let builtinCache: { stamp: string; pipelines: LoadedPipeline[] } | undefined;

/** The built-in pipelines, parsed once while their files stay as they are (every run needs them). */
function builtinPipelines(): LoadedPipeline[] {
  const files = listBuiltinPipelines();
  const stamp = files.map((f) => `${f}:${statSync(f).mtimeMs}`).join("\n");
  if (builtinCache?.stamp !== stamp) builtinCache = { stamp, pipelines: files.map((f) => loadPipeline(f)) };
  return builtinCache.pipelines;
}
