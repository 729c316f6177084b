import type { ColumnType } from "../../schema/table.js";
import { a1Range } from "./a1.js";
import type { SheetsApi } from "./api.js";
import { appendToTab } from "./append.js";
import { type CellValue, chunkRows, type EncodeStats, encodeCell } from "./encode.js";
import { cellsOf, checkCells } from "./grid.js";
import { limitError, SHEETS_LIMITS } from "./limits.js";
import { type Placed, replaceTab } from "./replace.js";
import { createTab, findTab } from "./tabs.js";
import { writeChunks } from "./write-rows.js";

export type PushMode = "replace" | "append";

export interface PushTarget {
  spreadsheet: string;
  tab: string;
  /** replace (default): the tab holds exactly this table afterwards; append: rows go below what is there. */
  mode?: PushMode | undefined;
}

export interface TableData {
  columns: string[];
  /** Column types where known, so SQLite's 0/1 become booleans. */
  types?: Record<string, ColumnType | undefined> | undefined;
  /** Rows as arrays in the order of `columns`; or a loader, called only after the cell limit passed. */
  rows: Iterable<readonly unknown[]> | (() => Promise<Iterable<readonly unknown[]>>);
  /** When known in advance, the cell limit is checked before a single row is read. */
  rowCount?: number | undefined;
}

export interface PushResult {
  spreadsheet: string;
  /** The tab's real title (Google matches titles regardless of case). */
  tab: string;
  mode: PushMode;
  rows: number;
  columns: number;
  tabCreated: boolean;
  gridGrown: boolean;
  /** Write requests sent with values. */
  valueRequests: number;
  truncatedCells: number;
  /** The A1 range the data rows went to (empty when there were none). */
  range: string;
  /** Replace mode on an existing tab: written to a hidden tab first, then swapped in at once. */
  staged: boolean;
}

export interface PushSettings {
  maxRequestBytes: number;
}

function checkShape(target: PushTarget, columns: string[]): void {
  const title = target.tab;
  if (!title.trim()) throw limitError("the tab name is empty");
  if (title.length > SHEETS_LIMITS.tabTitleLength)
    throw limitError(
      `the tab name is ${title.length} characters; Sheets allows ${SHEETS_LIMITS.tabTitleLength}`,
    );
  if (columns.length === 0) throw limitError("the table has no columns: nothing to push");
  if (columns.length > SHEETS_LIMITS.columnsPerTab)
    throw limitError(
      `the table has ${columns.length} columns; a tab holds at most ${SHEETS_LIMITS.columnsPerTab}`,
    );
}

async function encodeTable(data: TableData): Promise<{ encoded: CellValue[][]; stats: EncodeStats }> {
  const stats: EncodeStats = { truncatedCells: 0 };
  const types = data.columns.map((c) => data.types?.[c]);
  const encoded: CellValue[][] = [data.columns.map((c) => encodeCell(c, "text", stats))];
  const source = typeof data.rows === "function" ? await data.rows() : data.rows;
  for (const row of source) encoded.push(types.map((t, i) => encodeCell(row[i], t, stats)));
  return { encoded, stats };
}

/**
 * Pushes a table to a tab (the caller holds the spreadsheet's write lock). Everything that can be
 * refused is refused before the first write: the shape, the cell limit (also counting the other
 * tabs), a header that does not match in append mode. Every write goes to an explicit range, RAW
 * so `=1+1` stays text, in requests of at most `maxRequestBytes`. The tab is found the way Google
 * finds it (case-insensitively).
 */
export async function pushTable(
  api: SheetsApi,
  target: PushTarget,
  data: TableData,
  settings: PushSettings,
): Promise<PushResult> {
  const { spreadsheet } = target;
  const mode = target.mode ?? "replace";
  const width = data.columns.length;
  checkShape(target, data.columns);
  if (data.rowCount !== undefined)
    checkCells((data.rowCount + 1) * width, `the table (${data.rowCount} rows)`);
  const { encoded, stats } = await encodeTable(data);
  checkCells(encoded.length * width, `the table (${encoded.length - 1} rows × ${width} columns)`);

  const tabs = await api.tabs(spreadsheet);
  const existing = findTab(tabs, target.tab);
  const others = cellsOf(tabs.filter((t) => t !== existing));
  const max = settings.maxRequestBytes;
  let placed: Placed;
  if (!existing) placed = await pushToNewTab(api, spreadsheet, target.tab, encoded, width, others, max);
  else if (mode === "append")
    placed = await appendToTab(api, spreadsheet, existing, encoded, data.columns, others, max);
  else placed = await replaceTab(api, spreadsheet, existing, encoded, width, others, max);
  return {
    spreadsheet,
    tab: existing?.title ?? target.tab,
    mode,
    rows: encoded.length - 1,
    columns: width,
    tabCreated: !existing,
    gridGrown: placed.gridGrown,
    valueRequests: placed.valueRequests,
    truncatedCells: stats.truncatedCells,
    range: placed.range,
    staged: placed.staged ?? false,
  };
}

/** A new tab, sized for the table, its header frozen (Sheets refuses to freeze every row, hence at least 2). */
async function pushToNewTab(
  api: SheetsApi,
  spreadsheet: string,
  title: string,
  encoded: CellValue[][],
  width: number,
  otherCells: number,
  maxRequestBytes: number,
): Promise<Placed> {
  const rows = Math.max(2, encoded.length);
  checkCells(otherCells + rows * width, `spreadsheet ${spreadsheet} with tab "${title}" of ${rows}×${width}`);
  const chunks = chunkRows(encoded, maxRequestBytes);
  const tab = await createTab(api, spreadsheet, { title, rows, columns: width, frozenRows: 1 });
  await writeChunks(api, spreadsheet, tab.title, chunks, 1, width);
  const range = encoded.length > 1 ? a1Range(tab.title, 2, 1, encoded.length, width) : "";
  return { gridGrown: true, valueRequests: chunks.length, range };
}
