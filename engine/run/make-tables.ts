import { statSync } from "node:fs";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ensureTable, tableChangeProblems } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "../define/pipeline-file.js";
import { ensureViews } from "../load/ensure-views.js";
import { ensureHistoryViews, historyViewNames } from "../load/history-views.js";
import { type CompiledMapping, compileMapping } from "../normalize/mapping.js";

/**
 * What a run makes before its first call: the tables (and `_current`/`_changes` views) of its
 * pipelines and their declared views; and, for the built-in pipelines whose tables its SQL inputs
 * or views read, those tables (and their views when one of those is read). A warehouse thus holds
 * the tables of what ran, and a chained query never meets a missing table: it reads an empty one.
 */
interface TablesToMake {
  /** Pipelines whose tables (and history views) are made. */
  tables: LoadedPipeline[];
  /** Pipelines whose declared `views:` are made too. */
  views: LoadedPipeline[];
}

/** The names of the tables and history views a pipeline's records make. */
function tableNames(mapping: CompiledMapping): string[] {
  return [mapping.table.name, ...mapping.children.map((c) => c.name), ...historyViewNames(mapping)];
}

/** The SQL a pipeline runs against the warehouse: its input queries (when it runs) and its views. */
function sqlOf(p: LoadedPipeline, runs: boolean): string[] {
  const from = p.input ? (Array.isArray(p.input.from) ? p.input.from : [p.input.from]) : [];
  const inputs = runs ? from.flatMap((s) => ("sql" in s ? [s.sql] : [])) : [];
  return [...inputs, ...p.views.map((v) => v.sql)];
}

/** Every identifier-like word of a query, lower-cased: a superset of the tables it names. */
function wordsOf(query: string): Set<string> {
  return new Set(query.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
}

/** The run's pipelines and the built-in ones their SQL reads (see `TablesToMake`). */
export function tablesToMake(pipelines: LoadedPipeline[]): TablesToMake {
  const owners = new Map<string, { p: LoadedPipeline; view: boolean }>();
  for (const p of [...builtinPipelines(), ...pipelines]) {
    for (const t of tableNames(compileMapping(p.records))) owners.set(t, { p, view: false });
    for (const v of p.views) owners.set(v.name.toLowerCase(), { p, view: true });
  }
  const tables = new Set<LoadedPipeline>(pipelines);
  const views = new Set<LoadedPipeline>();
  const scan = (p: LoadedPipeline, runs: boolean) => {
    if (views.has(p)) return;
    views.add(p);
    for (const word of sqlOf(p, runs).flatMap((q) => [...wordsOf(q)])) {
      const owner = owners.get(word);
      if (!owner || owner.p === p) continue;
      tables.add(owner.p);
      if (owner.view) scan(owner.p, false);
    }
  };
  for (const p of pipelines) scan(p, true);
  return { tables: [...tables], views: [...views] };
}

/** The names of the tables and views `makeTables` makes for these pipelines. */
export function tablesMadeBy(pipelines: LoadedPipeline[]): string[] {
  const make = tablesToMake(pipelines);
  return [
    ...new Set([
      ...make.tables.flatMap((p) => tableNames(compileMapping(p.records))),
      ...make.views.flatMap((p) => p.views.map((v) => v.name)),
    ]),
  ];
}

/**
 * Refuses, before anything is altered, tables that are there and cannot take what these pipelines
 * (and the built-ins their SQL reads) load: another file's table of the same name with another
 * key, say. Adding columns and indexes to it first, then failing at the first row, would leave
 * someone else's table changed for nothing.
 */
export async function checkTablesFit(w: Warehouse, pipelines: LoadedPipeline[]): Promise<void> {
  const owned = tablesToMake(pipelines).tables.flatMap((p) => {
    const mapping = compileMapping(p.records);
    return [mapping.table, ...mapping.children].map((def) => ({ p, def }));
  });
  const problems = await tableChangeProblems(
    w,
    owned.map((o) => o.def),
  );
  if (!problems.length) return;
  const first = owned.find((o) => o.def === problems[0]!.def)!.p;
  throw new ValidationError(
    `pipeline file ${first.file}`,
    problems.map(({ def, problem }) => {
      const p = owned.find((o) => o.def === def)!.p;
      return {
        path: p === first ? ["records", "table"] : [],
        message: `${p === first ? "" : `${p.file}: `}table ${def.name} is there and cannot take pipeline ${p.name}'s rows: ${problem}. Nothing was changed. Give the pipeline a table of its own (records.table), or rename the table that is there if it is a leftover`,
      };
    }),
  );
}

/** Makes what a run of these pipelines needs (`TablesToMake`); what is there already is left alone. */
export async function makeTables(w: Warehouse, pipelines: LoadedPipeline[]): Promise<void> {
  await checkTablesFit(w, pipelines);
  const make = tablesToMake(pipelines);
  for (const p of make.tables) await ensurePipelineTables(w, p);
  for (const p of make.views) await ensureViews(w, p, make.tables);
}

export async function ensurePipelineTables(w: Warehouse, p: LoadedPipeline): Promise<void> {
  const mapping = compileMapping(p.records);
  await ensureTable(w, mapping.table);
  for (const child of mapping.children) await ensureTable(w, child);
  await ensureHistoryViews(w, mapping);
}

let builtinCache: { stamp: string; pipelines: LoadedPipeline[] } | undefined;

/** The built-in pipelines, parsed once while their files stay as they are (every run needs them). */
function builtinPipelines(): LoadedPipeline[] {
  const files = listBuiltinPipelines();
  const stamp = files.map((f) => `${f}:${statSync(f).mtimeMs}`).join("\n");
  if (builtinCache?.stamp !== stamp) builtinCache = { stamp, pipelines: files.map((f) => loadPipeline(f)) };
  return builtinCache.pipelines;
}
