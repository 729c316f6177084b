import { existsSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { sql } from "kysely";
import type { SheetReader } from "../../connectors/sheets/connector.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { READ_LIMITS, readBoundedText, tooManyValues } from "../../core/bounded-read.js";
import { ValidationError } from "../../core/errors.js";
import { durationMs, type InputSource } from "../../schema/pipeline.js";
import type { ParamValues } from "./params.js";
import type { LoadedPipeline } from "./pipeline-file.js";
import { readWarehouse } from "./warehouse-reads.js";

export type { SheetReader };

/** Reads a sheet range as values; supplied by the Sheets connector when credentials are set. */

export interface InputContext {
  warehouse: Warehouse;
  params: ParamValues;
  sheet?: SheetReader | undefined;
  /**
   * Tables a run would make before reading its inputs that the warehouse does not have yet (only
   * `plan` passes them, as it makes none): a query naming one reads nothing, as it would read
   * the empty table the run makes.
   */
  notYetMade?: readonly string[] | undefined;
  /**
   * How young a stored answer must be to count as fresh, for `:fresh_since` (default the pipeline's
   * `freshness`): 0 under `--refresh` (only what was seen this very moment counts as fresh).
   */
  freshnessMs?: number | undefined;
}

function clean(values: unknown[]): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const s = String(v).trim();
    if (s) seen.add(s);
  }
  return [...seen];
}

/**
 * Reads values from a file next to the pipeline: one per line, or a CSV column. The path must
 * stay inside the pipeline's folder, so a shared pipeline cannot read arbitrary files.
 */
function readFileInput(pipelineFile: string, path: string, column?: string): string[] {
  const base = dirname(pipelineFile);
  const full = resolve(base, path);
  const rel = relative(base, full);
  if (isAbsolute(path) || rel.startsWith("..") || isAbsolute(rel)) {
    throw new ValidationError(`pipeline file ${pipelineFile}`, [
      {
        path: ["input", "from", "file"],
        message: `"${path}" leaves the pipeline's folder; use a path inside it`,
      },
    ]);
  }
  if (!existsSync(full)) {
    throw new ValidationError(`pipeline file ${pipelineFile}`, [
      { path: ["input", "from", "file"], message: `no file at ${full}` },
    ]);
  }
  return readValues(full, column, `pipeline file ${pipelineFile}`);
}

/**
 * One value per line, or the named column of a CSV file (with a header row). A `.csv` file without
 * a column is read as CSV too, never line by line (its header would go out as a value): its only
 * column is used and `note` says so; with several columns it asks for one.
 */
export function readValues(
  file: string,
  column: string | undefined,
  source: string,
  note?: (text: string) => void,
): string[] {
  let text: string;
  try {
    text = readBoundedText(file, {
      maxBytes: READ_LIMITS.valuesFileBytes,
      what: source,
      instead: LARGE_LISTS,
    });
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EISDIR" ? "it is a folder; give a file of values" : (code ?? (err as Error).message);
    throw new ValidationError(source, [{ path: ["file"], message: `cannot read ${file} (${why})` }]);
  }
  text = text.replace(/^\uFEFF/, "");
  if (!column && !/\.csv$/i.test(file)) return lineValues(text, file, source);
  // One row past the limit is enough to refuse: the rest is never made into objects.
  const rows = parseCsv(text, {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    to: READ_LIMITS.values + 1,
  }) as Record<string, string>[];
  if (rows.length > READ_LIMITS.values) throw tooManyValues(source, `${file} (rows of CSV)`, LARGE_LISTS);
  const header = rows.length ? Object.keys(rows[0]!) : [];
  const chosen = column ?? csvColumn(file, header, source);
  if (rows.length && !header.includes(chosen)) {
    throw new ValidationError(source, [
      { path: ["column"], message: `${file} has no column "${chosen}"; it has ${header.join(", ")}` },
    ]);
  }
  if (!column) note?.(`${source}: ${file} read as CSV, column "${chosen}" (its header is not a value)`);
  return clean(rows.map((r) => r[chosen]));
}

/** What to do with a list over the limits of READ_LIMITS. */
const LARGE_LISTS = `split the list into files of at most ${READ_LIMITS.values.toLocaleString("en-US")} values and run each, or load it into a table and read it with input.from.sql (docs/pipeline-files.md)`;

/**
 * The non-empty lines of a file (each value once), counted as they are scanned: splitting the
 * text whole would make millions of strings of a file of short lines before any was counted.
 */
function lineValues(text: string, file: string, source: string): string[] {
  const seen = new Set<string>();
  let count = 0;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf("\n", at);
    const value = text.slice(at, end < 0 ? text.length : end).trim();
    at = end < 0 ? text.length : end + 1;
    if (!value) continue;
    if (++count > READ_LIMITS.values) throw tooManyValues(source, file, LARGE_LISTS);
    seen.add(value);
  }
  return [...seen];
}

/** The column of a CSV file given without one: its only column, else a question naming them. */
function csvColumn(file: string, header: string[], source: string): string {
  if (header.length === 1) return header[0]!;
  throw new ValidationError(source, [
    {
      path: ["column"],
      message: `${file} is a CSV file with columns ${header.join(", ") || "(none)"}: name one with #column (e.g. @${file}#${header[0] ?? "keyword"})`,
    },
  ]);
}

function freshSince(p: LoadedPipeline, freshnessMs = durationMs(p.freshness)): string {
  // Nothing is fresh: a time no row was seen at (and text that sorts after every ISO time).
  if (freshnessMs === NOTHING_FRESH) return "9999-12-31T23:59:59.999Z";
  return new Date(Date.now() - freshnessMs).toISOString();
}

/** `freshnessMs` that makes `:fresh_since` count nothing as fresh: the input query's whole scope. */
const NOTHING_FRESH = Number.NEGATIVE_INFINITY;

/**
 * A query with `:name` placeholders bound as parameters (never spliced into the text): the
 * pipeline's params, and `:fresh_since` (now minus the pipeline's freshness, as an ISO timestamp).
 */
function bindSql(query: string, values: Record<string, unknown>) {
  const parts: string[] = [];
  const bound: unknown[] = [];
  let last = 0;
  for (const m of query.matchAll(/(?<![:\w]):([a-z_][a-z0-9_]*)\b(?!:)/gi)) {
    const name = m[1]!;
    if (!(name in values)) continue;
    parts.push(query.slice(last, m.index));
    const v = values[name];
    bound.push(Array.isArray(v) ? v.join(",") : v);
    last = m.index + m[0].length;
  }
  parts.push(query.slice(last));
  return sql<Record<string, unknown>>(
    Object.assign([...parts], { raw: parts }) as unknown as TemplateStringsArray,
    ...bound,
  );
}

/** The values of a param, list or file source; undefined for sources that need the warehouse or a sheet. */
function staticSource(p: LoadedPipeline, source: InputSource, params: ParamValues): string[] | undefined {
  if ("param" in source) {
    const v = params[source.param];
    return clean(v === undefined ? [] : Array.isArray(v) ? v : [v]);
  }
  if ("list" in source) return clean(source.list);
  if ("file" in source) return readFileInput(p.file, source.file, source.column);
  return undefined;
}

/**
 * The input values as far as they can be known before the run starts (params, lists, files), or
 * "dynamic" when a SQL or sheet source comes first that would be asked: what the run will call, so
 * a bad value is refused before anything is sent or written.
 */
export function staticInput(p: LoadedPipeline, params: ParamValues): string[] | undefined | "dynamic" {
  if (!p.input) return undefined;
  for (const source of Array.isArray(p.input.from) ? p.input.from : [p.input.from]) {
    const values = staticSource(p, source, params);
    if (values === undefined) return "dynamic";
    if (values.length) return values;
  }
  return [];
}

async function fromSource(p: LoadedPipeline, source: InputSource, ctx: InputContext): Promise<string[]> {
  const values = staticSource(p, source, ctx.params);
  if (values !== undefined) return values;
  if (!("sql" in source) && !("sheet" in source)) return [];
  if ("sql" in source) {
    if (ctx.notYetMade?.some((t) => new RegExp(`\\b${t}\\b`, "i").test(source.sql))) return [];
    // The one read-only path: a pipeline's input query can read, never write (nor in `plan`).
    const q = bindSql(source.sql, { fresh_since: freshSince(p, ctx.freshnessMs), ...ctx.params }).compile(
      ctx.warehouse.db,
    );
    try {
      const rows = await readWarehouse(ctx.warehouse, q.sql, {
        params: q.parameters,
        source: `pipeline file ${p.file} input.from.sql`,
      });
      return clean(rows.map((row) => Object.values(row)[0]));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      throw new ValidationError(`pipeline file ${p.file}`, [
        {
          path: ["input", "from", "sql"],
          message: `the query failed: ${err.issues.map((i) => i.message).join("; ")}`,
        },
      ]);
    }
  }
  if (!ctx.sheet) {
    throw new ValidationError(`pipeline file ${p.file}`, [
      {
        path: ["input", "from", "sheet"],
        message: "sheet inputs need Google credentials (GOOGLE_APPLICATION_CREDENTIALS)",
      },
    ]);
  }
  return clean(await ctx.sheet(source.sheet.spreadsheet, source.sheet.range));
}

/**
 * How many inputs a pipeline's input SQL would give if nothing were fresh, when it skips fresh
 * ones (reads `:fresh_since`); undefined otherwise. A run that finds nothing to ask says why.
 */
export async function inputScope(p: LoadedPipeline, ctx: InputContext): Promise<number | undefined> {
  const sources = !p.input ? [] : Array.isArray(p.input.from) ? p.input.from : [p.input.from];
  if (!sources.some((s) => "sql" in s && /:fresh_since\b/.test(s.sql))) return undefined;
  return (await resolveInput(p, { ...ctx, freshnessMs: NOTHING_FRESH }))?.length;
}

/** The values that fan out into calls: the first source (in order) that yields any. */
export async function resolveInput(p: LoadedPipeline, ctx: InputContext): Promise<string[] | undefined> {
  if (!p.input) return undefined;
  const sources = Array.isArray(p.input.from) ? p.input.from : [p.input.from];
  for (const source of sources) {
    const values = await fromSource(p, source, ctx);
    if (values.length) return values;
  }
  return [];
}

/**
 * A pipeline's input queries bound as a run binds them (its params, `:fresh_since`), unread: what a
 * run checks against the warehouse before it makes anything (engine/run/sql-trial.ts).
 */
export function inputQueries(p: LoadedPipeline, params: ParamValues) {
  const sources = !p.input ? [] : Array.isArray(p.input.from) ? p.input.from : [p.input.from];
  return sources.flatMap((s) =>
    "sql" in s ? [bindSql(s.sql, { fresh_since: freshSince(p), ...params })] : [],
  );
}
