import type { ColumnType } from "../warehouse/types.js";
import { a1Range, columnLetters, firstRowOf, quoteTab } from "./a1.js";
import type { SheetsApi, SheetTab } from "./api.js";
import { type CellValue, type Chunk, chunkRows, type EncodeStats, encodeCell } from "./encode.js";
import { limitError, SHEETS_LIMITS } from "./limits.js";

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
}

export interface PushSettings {
  maxRequestBytes: number;
}

function checkCells(cells: number, what: string): void {
  if (cells > SHEETS_LIMITS.cellsPerSpreadsheet) {
    throw limitError(
      `${what} needs ${cells.toLocaleString("en")} cells; a spreadsheet holds at most ${SHEETS_LIMITS.cellsPerSpreadsheet.toLocaleString("en")} (push fewer rows or columns, e.g. with --sql)`,
    );
  }
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

const sameHeader = (have: unknown[], want: string[]) =>
  have.length === want.length && want.every((c, i) => String(have[i] ?? "").trim() === c);

/**
 * Pushes a table to a tab (the caller holds the spreadsheet's write lock). Everything that can be
 * refused is refused before the first write: the shape, the cell limit (also counting the other
 * tabs), a header that does not match in append mode. Then the tab is created or its grid grown
 * (a write past the grid fails on the real API), the header frozen, and the rows written in
 * requests of at most `maxRequestBytes`, RAW so `=1+1` stays text.
 */
export async function pushTable(
  api: SheetsApi,
  target: PushTarget,
  data: TableData,
  settings: PushSettings,
): Promise<PushResult> {
  const { spreadsheet, tab } = target;
  const mode = target.mode ?? "replace";
  const columns = data.columns;
  const width = columns.length;
  checkShape(target, columns);
  if (data.rowCount !== undefined)
    checkCells((data.rowCount + 1) * width, `the table (${data.rowCount} rows)`);

  const stats: EncodeStats = { truncatedCells: 0 };
  const types = columns.map((c) => data.types?.[c]);
  const encoded: CellValue[][] = [columns.map((c) => encodeCell(c, "text", stats))];
  const source = typeof data.rows === "function" ? await data.rows() : data.rows;
  for (const row of source) encoded.push(types.map((t, i) => encodeCell(row[i], t, stats)));
  const dataRows = encoded.length - 1;
  checkCells(encoded.length * width, `the table (${dataRows} rows × ${width} columns)`);

  const tabs = await api.tabs(spreadsheet);
  const existing = tabs.find((t) => t.title === tab);
  let appendBelow = false;
  if (existing && mode === "append") {
    const header = (await api.values(spreadsheet, `${quoteTab(tab)}!1:1`))[0] ?? [];
    if (header.some((v) => String(v).trim() !== "")) {
      if (!sameHeader(header, columns)) {
        throw limitError(
          `tab "${tab}" has the columns [${header.join(", ")}] but the table has [${columns.join(", ")}]; append needs the same columns (use --mode replace or another tab)`,
        );
      }
      appendBelow = true;
    }
  }

  const rows = appendBelow ? encoded.slice(1) : encoded;
  const grid = plannedGrid(existing, rows.length, width, appendBelow);
  const others = tabs.filter((t) => t !== existing).reduce((n, t) => n + t.rowCount * t.columnCount, 0);
  checkCells(
    others + grid.rows * grid.columns,
    `spreadsheet ${spreadsheet} with tab "${tab}" grown to ${grid.rows}×${grid.columns}`,
  );
  const chunks = chunkRows(rows, settings.maxRequestBytes);

  const gridGrown = await shapeTab(api, spreadsheet, tab, existing, grid);
  let range = "";
  if (appendBelow) {
    range = await appendChunks(api, spreadsheet, tab, width, chunks);
  } else {
    for (const c of chunks) await api.update(spreadsheet, chunkRange(tab, c, 1, width), c.values);
    if (dataRows > 0) range = a1Range(tab, 2, 1, dataRows + 1, width);
    if (existing && mode === "replace")
      await clearLeftovers(api, spreadsheet, tab, existing, encoded.length, width);
  }
  return {
    spreadsheet,
    tab,
    mode,
    rows: dataRows,
    columns: width,
    tabCreated: !existing,
    gridGrown,
    valueRequests: chunks.length,
    truncatedCells: stats.truncatedCells,
    range,
  };
}

function plannedGrid(existing: SheetTab | undefined, rows: number, width: number, appendBelow: boolean) {
  // Sheets refuses to freeze every row of a tab, so a tab with a frozen header keeps one more row.
  if (!existing) return { rows: Math.max(2, rows), columns: width };
  // Appending: the table ends at or before the last grid row, so this many more rows always suffice.
  const needRows = appendBelow ? existing.rowCount + rows : rows;
  return { rows: Math.max(2, existing.rowCount, needRows), columns: Math.max(existing.columnCount, width) };
}

async function shapeTab(
  api: SheetsApi,
  spreadsheet: string,
  tab: string,
  existing: SheetTab | undefined,
  grid: { rows: number; columns: number },
): Promise<boolean> {
  if (!existing) {
    await api.batchUpdate(spreadsheet, [
      {
        addSheet: {
          properties: {
            title: tab,
            gridProperties: { rowCount: grid.rows, columnCount: grid.columns, frozenRowCount: 1 },
          },
        },
      },
    ]);
    return true;
  }
  const frozen = Math.max(1, existing.frozenRowCount);
  const grown = grid.rows > existing.rowCount || grid.columns > existing.columnCount;
  if (!grown && frozen === existing.frozenRowCount) return false;
  await api.batchUpdate(spreadsheet, [
    {
      updateSheetProperties: {
        properties: {
          sheetId: existing.sheetId,
          gridProperties: { rowCount: grid.rows, columnCount: grid.columns, frozenRowCount: frozen },
        },
        fields: "gridProperties.rowCount,gridProperties.columnCount,gridProperties.frozenRowCount",
      },
    },
  ]);
  return grown;
}

const chunkRange = (tab: string, c: Chunk, firstRow: number, width: number) =>
  a1Range(tab, firstRow + c.first, 1, firstRow + c.first + c.rows - 1, width);

/** The first chunk finds the end of the table through the API; the others go right below it, at fixed places. */
async function appendChunks(
  api: SheetsApi,
  spreadsheet: string,
  tab: string,
  width: number,
  chunks: Chunk[],
): Promise<string> {
  const [first, ...rest] = chunks;
  if (!first) return "";
  const { updatedRange } = await api.append(
    spreadsheet,
    `${quoteTab(tab)}!A1:${columnLetters(width)}`,
    first.values,
  );
  const start = firstRowOf(updatedRange);
  if (start === undefined)
    throw limitError(`Sheets did not say where the appended rows went (${updatedRange})`);
  for (const c of rest) await api.update(spreadsheet, chunkRange(tab, c, start, width), c.values);
  const last = chunks[chunks.length - 1]!;
  return a1Range(tab, start, 1, start + last.first + last.rows - 1, width);
}

/** Replace mode: what the previous table left below or to the right of the new one is emptied. */
async function clearLeftovers(
  api: SheetsApi,
  spreadsheet: string,
  tab: string,
  before: SheetTab,
  writtenRows: number,
  width: number,
): Promise<void> {
  const columns = Math.max(before.columnCount, width);
  if (before.rowCount > writtenRows)
    await api.clear(spreadsheet, a1Range(tab, writtenRows + 1, 1, before.rowCount, columns));
  if (before.columnCount > width) {
    await api.clear(
      spreadsheet,
      a1Range(tab, 1, width + 1, Math.min(writtenRows, before.rowCount), before.columnCount),
    );
  }
}
