import type { SheetsConnector } from "../../connectors/sheets/connector.js";
import type { PushResult, PushTarget } from "../../connectors/sheets/push.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { listTables } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import type { ColumnType } from "../../schema/table.js";
import type { ParamValue } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { renderRequest } from "../define/template.js";
import { readWarehouse } from "../define/warehouse-reads.js";
import { countRows, pipelineColumnTypes, readRows, stableOrder, tableColumns } from "./read-table.js";

export type PushSource =
  /** A table or view of the warehouse (checked against its real tables). */
  | { table: string; runId?: string | undefined; types?: Record<string, ColumnType> | undefined }
  /** The user's own query (CLI only): its columns are those of the first row. */
  | { sql: string };

/**
 * Pushes a warehouse table (or a query's rows) to a tab. A table is counted first, so one past the
 * cell limit is refused before it is read. Rows are read with exact integers (past 2^53 they go as text).
 *
 * @example
 * await pushFromWarehouse(sheets, w, { table: "marketplace_search_results" },
 *   { spreadsheet: "1AbC…", tab: "Results", mode: "replace" });
 */
export async function pushFromWarehouse(
  sheets: SheetsConnector,
  w: Warehouse,
  source: PushSource,
  target: PushTarget,
): Promise<PushResult> {
  if ("sql" in source) {
    // Integers read exactly: past 2^53 they travel as text with every digit.
    const rows = await readWarehouse(w, source.sql, { source: "--sql", exactIntegers: true });
    const columns = Object.keys(rows[0] ?? {});
    if (columns.length === 0) {
      throw new ValidationError("--sql", [
        { path: [], message: "the query returned no rows, so there is nothing to push" },
      ]);
    }
    return sheets.pushTable(target, {
      columns,
      rows: rows.map((r) => columns.map((c) => r[c])),
      rowCount: rows.length,
    });
  }
  const tables = await listTables(w);
  if (!tables.includes(source.table)) {
    throw new ValidationError("--table", [
      {
        path: [],
        message: `no table "${source.table}" in the warehouse (it has: ${tables.slice(0, 20).join(", ") || "none"})`,
      },
    ]);
  }
  const info = await tableColumns(w, source.table, source.types);
  const columns = info.map((c) => c.name);
  const runId = source.runId !== undefined && columns.includes("run_id") ? source.runId : undefined;
  return sheets.pushTable(target, {
    columns,
    types: Object.fromEntries(info.map((c) => [c.name, c.type])),
    rowCount: await countRows(w, source.table, runId),
    rows: async () =>
      (
        await readRows(w, source.table, {
          columns,
          runId,
          orderBy: await stableOrder(w, source.table, info),
          exactIntegers: true,
        })
      ).map((r) => columns.map((c) => r[c])),
  });
}

/**
 * Pushes the rows one run of a pipeline loaded (its `sheet:` output's table, else its own), with
 * the column types the pipeline declares.
 */
export function pushRunRows(
  sheets: SheetsConnector,
  w: Warehouse,
  p: LoadedPipeline,
  runId: string,
  target: PushTarget,
): Promise<PushResult> {
  const table = p.sheet?.table ?? p.records.table;
  return pushFromWarehouse(sheets, w, { table, runId, types: pipelineColumnTypes([p]).get(table) }, target);
}

export interface OutputPush {
  pipeline: string;
  result?: PushResult;
  error?: string;
}

/**
 * After a run, pushes each pipeline's `sheet:` output: the rows that run loaded into its table.
 * A failed push is reported per pipeline; the loaded data stays in the warehouse either way.
 *
 * @example
 * const pushes = await pushPipelineOutputs({ warehouse, sheets, pipelines, runId: summary.runId, params });
 */
export async function pushPipelineOutputs(o: {
  warehouse: Warehouse;
  sheets: SheetsConnector;
  pipelines: LoadedPipeline[];
  runId: string;
  params?: Record<string, ParamValue[]> | undefined;
}): Promise<OutputPush[]> {
  const out: OutputPush[] = [];
  for (const p of o.pipelines) {
    if (!p.sheet) continue;
    const vars = Object.fromEntries(
      Object.entries(o.params ?? {}).map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
    );
    const where = renderRequest({ spreadsheet: p.sheet.spreadsheet, tab: p.sheet.tab }, vars);
    try {
      if (typeof where["spreadsheet"] !== "string" || typeof where["tab"] !== "string") {
        throw new Error(`the sheet output of ${p.name} names a param that was not given`);
      }
      const result = await pushRunRows(o.sheets, o.warehouse, p, o.runId, {
        spreadsheet: where["spreadsheet"],
        tab: where["tab"],
        mode: p.sheet.mode,
      });
      out.push({ pipeline: p.name, result });
    } catch (err) {
      out.push({ pipeline: p.name, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}
