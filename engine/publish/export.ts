import { existsSync, statSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  type FileColumn,
  type FileColumnType,
  type FileFormat,
  openRowFile,
  type RowFileWriter,
} from "../../connectors/files/row-file.js";
import { holdTempFile, releaseTempFile, sweepStaleTempFiles } from "../../connectors/files/temp-files.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { checkReadStatement, type ResultColumn } from "../../connectors/warehouse/read-only.js";
import { SkillsyncError, ValidationError } from "../../core/errors.js";
import { sha256Hex } from "../../core/hash.js";
import type { ColumnType } from "../../schema/table.js";
import { highestLoadId, lastExport, recordExport } from "../../store/exports.js";
import { readWarehouseBatches } from "../define/warehouse-reads.js";
import { tableColumns, userTables } from "./read-table.js";

export const EXPORT_FORMATS = ["parquet", "csv", "jsonl"] as const;

/**
 * Rows read (and written) per batch: about 1.5 MB of a wide table's rows. Larger batches read no
 * faster and keep more in memory (10 000: 200 MB of RSS in the export and in the SQLite reader).
 */
const BATCH_ROWS = 2_000;

export interface ExportRequest {
  /** Tables (or views) to export, each to its own file; or `sql`, one query to one file. */
  tables: string[];
  sql?: string | undefined;
  format: FileFormat;
  /** The file (one table, or `sql`), or the existing folder of `<table>.<ext>` files. */
  out: string;
  /** Only rows of loads after the previous export of the same source to the same file. */
  sinceLast: boolean;
  /** Column types the pipelines declare (table → column → type): SQLite's booleans, dates, JSON. */
  types?: Map<string, Record<string, ColumnType>> | undefined;
  /** Told the rows written so far (and the total, when it is known) after each batch. */
  onProgress?: ((p: { source: string; rows: number; total: number | undefined }) => void) | undefined;
  /** Aborted (Ctrl-C, SIGTERM): the export stops at the next batch, and no file is left. */
  signal?: AbortSignal | undefined;
  /** Told the temporary files of earlier, killed exports removed from a target's folder. */
  onSwept?: ((dir: string, names: string[]) => void) | undefined;
}

export interface ExportOutcome {
  /** The table's name, or "sql". */
  source: string;
  file: string;
  rows: number;
  /** False when `--since-last` found nothing new: no file was written or replaced. */
  written: boolean;
  /** With --since-last: the rows are of loads after this one (null: all rows, no previous export). */
  afterLoad: number | null;
  /** The highest load id the export covers (null: the warehouse has no load yet). */
  throughLoad: number | null;
}

/** One source planned: what to read and where it goes. */
interface Planned {
  source: string;
  /** What skillsync_exports knows it by: `table NAME` or `sql SHA256`. */
  key: string;
  file: string;
  /** The read statement before any --since-last filter. */
  select: string;
  known: Record<string, FileColumnType>;
  hasLoadId: boolean;
  table: string | undefined;
}

const usage = (message: string): never => {
  throw new ValidationError("export", [{ path: [], message }]);
};

/**
 * `skillsync export`: tables, or one query, to Parquet, CSV or JSON Lines files, read a batch at a
 * time through the read-only path (no row cap, no time limit), each written to a temporary file
 * beside its target and renamed over it at the end (docs/export.md). Everything the command line
 * says is checked before anything is read or written.
 *
 * @example await exportRows(w, { tables: ["patent_bibliography"], format: "parquet", out: "bib.parquet", sinceLast: false })
 */
export async function exportRows(w: Warehouse, req: ExportRequest): Promise<ExportOutcome[]> {
  const plan = await planExport(w, req);
  for (const dir of new Set(plan.map((p) => dirname(p.file)))) {
    const swept = await sweepStaleTempFiles(dir);
    if (swept.length) req.onSwept?.(dir, swept);
  }
  const out: ExportOutcome[] = [];
  for (const p of plan) out.push(await exportOne(w, p, req));
  return out;
}

async function planExport(w: Warehouse, req: ExportRequest): Promise<Planned[]> {
  checkRequest(req);
  const out = resolve(req.out);
  const isFolder = existsSync(out) && statSync(out).isDirectory();
  return req.sql !== undefined
    ? [await planSql(w, req, req.sql, out, isFolder)]
    : planTables(w, req, out, isFolder);
}

/** What the command line says, checked before the warehouse is asked anything. */
function checkRequest(req: ExportRequest): void {
  if (!(EXPORT_FORMATS as readonly string[]).includes(req.format)) {
    usage(`--format must be one of ${EXPORT_FORMATS.join(", ")}, got "${req.format}"`);
  }
  if (req.sql !== undefined && req.tables.length) usage("give tables or --sql, not both");
  if (req.sql === undefined && !req.tables.length) usage("name a table to export, or give --sql QUERY");
  if (!req.out.trim()) usage("--out is empty: give the file (or, for several tables, the folder) to write");
}

/** `--sql`: one checked read statement to one file. */
async function planSql(
  w: Warehouse,
  req: ExportRequest,
  sql: string,
  out: string,
  isFolder: boolean,
): Promise<Planned> {
  if (isFolder) usage(`--out ${req.out} is a folder: with --sql, --out is the file to write`);
  folderMustExist(out, req.out);
  const text = checkReadStatement(sql, w.adapter.lexicon, "--sql").text;
  const columns = req.sinceLast ? await resultColumns(w, text) : [];
  const hasLoadId = columns.some((c) => c.name === "load_id");
  if (req.sinceLast && !hasLoadId) {
    usage(
      "--since-last needs a load_id column in the query's result (select it, e.g. select *, or select …, load_id); this query's columns: " +
        columns.map((c) => c.name).join(", "),
    );
  }
  return {
    source: "sql",
    key: `sql ${sha256Hex(text)}`,
    file: out,
    select: text,
    known: {},
    hasLoadId,
    table: undefined,
  };
}

/** Tables of the warehouse, each to its file: `--out` itself, or `<table>.<format>` in the folder. */
async function planTables(
  w: Warehouse,
  req: ExportRequest,
  out: string,
  isFolder: boolean,
): Promise<Planned[]> {
  const known = new Set(await userTables(w));
  const unknown = req.tables.filter((t) => !known.has(t));
  if (unknown.length) {
    usage(
      `no table ${unknown.map((t) => `"${t}"`).join(", ")} in the warehouse; \`skillsync tables\` lists the tables`,
    );
  }
  if (new Set(req.tables).size !== req.tables.length) usage("a table is named twice");
  if (req.tables.length > 1 && !isFolder) {
    usage(
      `--out ${req.out} must be an existing folder when several tables are exported (one file per table)`,
    );
  }
  if (!isFolder) folderMustExist(out, req.out);
  const plan: Planned[] = [];
  for (const table of req.tables) {
    const info = await tableColumns(w, table, req.types);
    const hasLoadId = info.some((c) => c.name === "load_id");
    if (req.sinceLast && !hasLoadId) {
      usage(
        `--since-last needs a load_id column: ${table} has none (a view or a table skillsync did not load)`,
      );
    }
    plan.push({
      source: table,
      key: `table ${table}`,
      file: isFolder ? join(out, `${table}.${req.format}`) : out,
      select: w.db.selectFrom(table).selectAll().compile().sql,
      known: Object.fromEntries(info.filter((c) => c.type).map((c) => [c.name, c.type as FileColumnType])),
      hasLoadId,
      table,
    });
  }
  return plan;
}

function folderMustExist(file: string, given: string): void {
  const dir = dirname(file);
  if (!existsSync(dir)) usage(`--out ${given}: the folder ${dir} does not exist (create it first)`);
  if (!statSync(dir).isDirectory()) usage(`--out ${given}: ${dir} is a file, not a folder`);
}

const WHY_NOT_WRITTEN: Record<string, string> = {
  ENOENT: "no file can be made there",
  EACCES: "permission denied",
  EPERM: "not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of the path is a file, not a folder",
};

/**
 * The file system refused the file (or its temporary file beside it): a usage error naming --out,
 * never the temporary name's bare ENOENT. Undefined for any other error.
 */
function cannotWrite(err: unknown, file: string, given: string): ValidationError | undefined {
  const code = err && typeof err === "object" && "code" in err ? String(err.code) : "";
  const why = WHY_NOT_WRITTEN[code];
  if (!why) return undefined;
  const where = resolve(given) === file ? "" : ` (${file})`;
  return new ValidationError(
    "export",
    [
      {
        path: [],
        message: `--out ${given}${where}: cannot be written: ${why} (${code}); give a file in a folder you can write`,
      },
    ],
    { cause: err },
  );
}

/** The columns of a query's result, read without its rows. */
async function resultColumns(w: Warehouse, text: string): Promise<ResultColumn[]> {
  let columns: ResultColumn[] = [];
  await readWarehouseBatches(w, `select * from (\n${text}\n) as q limit 0`, {
    source: "--sql",
    onColumns: (c) => {
      columns = c;
    },
    onBatch: () => {},
  });
  return columns;
}

async function exportOne(w: Warehouse, p: Planned, req: ExportRequest): Promise<ExportOutcome> {
  const previous = req.sinceLast ? await lastExport(w, p.file, p.key) : undefined;
  const throughLoad = await highestLoadId(w);
  const afterLoad = previous ? (previous.throughLoad ?? 0) : null;
  const text = req.sinceLast ? sinceLastSelect(p.select, afterLoad, throughLoad) : p.select;
  const total =
    p.table === undefined || !req.onProgress
      ? undefined
      : await countOf(w, p.table, req.sinceLast, afterLoad, throughLoad);
  const f: FileInProgress = { temp: holdTempFile(p.file), columns: [], writer: undefined, rows: 0 };
  try {
    await readInto(w, p, req, { text, total }, f);
    if (f.rows === 0 && req.sinceLast) {
      await f.writer?.abort();
      await recordExport(w, { target: p.file, source: p.key, format: req.format, throughLoad, rows: 0 });
      return { source: p.source, file: p.file, rows: 0, written: false, afterLoad, throughLoad };
    }
    await completeFile(f, p, req);
  } catch (err) {
    await f.writer?.abort();
    await rm(f.temp, { force: true });
    throw cannotWrite(err, p.file, req.out) ?? err;
  } finally {
    releaseTempFile(f.temp);
  }
  await recordExport(w, { target: p.file, source: p.key, format: req.format, throughLoad, rows: f.rows });
  return { source: p.source, file: p.file, rows: f.rows, written: true, afterLoad, throughLoad };
}

/** `--since-last`: only rows of loads after the previous export, up to the highest load now. */
function sinceLastSelect(select: string, afterLoad: number | null, throughLoad: number | null): string {
  // Rows of loads that begin while this export reads have higher ids: the next export takes them.
  const wrapped = `select * from (\n${select}\n) as q`;
  const upper = throughLoad === null ? "" : `(load_id is null or load_id <= ${throughLoad})`;
  const lower = afterLoad === null ? "" : `load_id > ${afterLoad}`;
  const where = [lower, upper].filter(Boolean).join(" and ");
  return where ? `${wrapped} where ${where}` : wrapped;
}

/** One file being written: its temporary file, the result's columns, the writer once a batch came. */
interface FileInProgress {
  temp: string;
  columns: ResultColumn[];
  writer: RowFileWriter | undefined;
  rows: number;
}

/** The file's writer, its columns typed as declared, as the database says, else from the first batch. */
async function openWriter(
  f: FileInProgress,
  p: Planned,
  req: ExportRequest,
  sample: readonly unknown[][],
): Promise<RowFileWriter> {
  const fileColumns: FileColumn[] = f.columns.map((c, i) => ({
    name: c.name,
    type: p.known[c.name] ?? c.type ?? inferred(sample, i),
  }));
  f.writer = await openRowFile(req.format, f.temp, fileColumns);
  return f.writer;
}

/** Reads the source a batch at a time through the read-only path into the temporary file. */
async function readInto(
  w: Warehouse,
  p: Planned,
  req: ExportRequest,
  query: { text: string; total: number | undefined },
  f: FileInProgress,
): Promise<void> {
  await readWarehouseBatches(w, query.text, {
    params: [],
    source: p.table === undefined ? "--sql" : `table ${p.table}`,
    batchRows: BATCH_ROWS,
    exactIntegers: true,
    onColumns: (c) => {
      f.columns = c;
    },
    onBatch: async (batch) => {
      stopWhenAborted(p, req.signal);
      const writer = f.writer ?? (await openWriter(f, p, req, batch));
      await writer.write(batch);
      f.rows += batch.length;
      req.onProgress?.({ source: p.source, rows: f.rows, total: query.total });
    },
  });
}

/** Finishes the temporary file (a file with no rows has its columns) and renames it over the target. */
async function completeFile(f: FileInProgress, p: Planned, req: ExportRequest): Promise<void> {
  const writer = f.writer ?? (await openWriter(f, p, req, []));
  stopWhenAborted(p, req.signal);
  await writer.finish();
  // A signal during the Parquet conversion (seconds): the file is complete but unasked for now.
  stopWhenAborted(p, req.signal);
  await rename(f.temp, p.file);
}

function stopWhenAborted(p: Planned, signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new SkillsyncError("EXPORT_INTERRUPTED", `export of ${p.source} interrupted: no file written`);
  }
}

/**
 * The rows an export of a table will write, for the progress bar: counted on the warehouse's own
 * connection (the table's name was checked against the warehouse's tables), not in a reader.
 */
async function countOf(
  w: Warehouse,
  table: string,
  sinceLast: boolean,
  afterLoad: number | null,
  throughLoad: number | null,
): Promise<number> {
  let q = w.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n"));
  if (sinceLast && afterLoad !== null) q = q.where("load_id", ">", afterLoad);
  if (sinceLast && throughLoad !== null)
    q = q.where((eb) => eb.or([eb("load_id", "is", null), eb("load_id", "<=", throughLoad)]));
  const r = await q.executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** A column's type from the values of the first batch, where the database did not say. */
function inferred(sample: readonly unknown[][], column: number): FileColumnType {
  const types = new Set<FileColumnType>();
  for (const r of sample) {
    const v = r[column];
    if (v === null || v === undefined) continue;
    if (typeof v === "bigint") types.add("integer");
    else if (typeof v === "number") types.add("number");
    else if (typeof v === "boolean") types.add("boolean");
    else if (v instanceof Uint8Array) types.add("blob");
    else if (typeof v === "object" && !(v instanceof Date)) types.add("json");
    else types.add("text");
  }
  if (types.size === 1) return [...types][0]!;
  if (types.size === 2 && types.has("integer") && types.has("number")) return "number";
  return "text";
}
