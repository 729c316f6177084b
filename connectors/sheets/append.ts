import { a1Range, quoteTab } from "./a1.js";
import type { SheetsApi, SheetTab } from "./api.js";
import { type CellValue, chunkRows } from "./encode.js";
import { checkCells, growTab } from "./grid.js";
import { limitError } from "./limits.js";
import type { Placed } from "./replace.js";
import { writeChunks } from "./write-rows.js";

const blank = (v: unknown) => String(v ?? "").trim() === "";

const sameHeader = (have: unknown[], want: string[]) =>
  have.length === want.length && want.every((c, i) => String(have[i] ?? "").trim() === c);

/**
 * Append mode on an existing tab. The place is computed here, not left to `values.append`: its
 * table detection stops at an empty row or starts at the first filled column, so rows could land
 * one column to the right or over existing ones. Rows go to column A of the row after the last
 * row holding anything (a read trims trailing empty rows, so its length is that row), with
 * `values.update`, which a retry repeats harmlessly.
 */
export async function appendToTab(
  api: SheetsApi,
  spreadsheet: string,
  tab: SheetTab,
  encoded: CellValue[][],
  columns: string[],
  otherCells: number,
  maxRequestBytes: number,
): Promise<Placed> {
  const width = columns.length;
  const existing = await api.values(spreadsheet, quoteTab(tab.title));
  const header = existing[0] ?? [];
  if (existing.length > 0 && header.every(blank)) {
    throw limitError(
      `tab "${tab.title}" has rows but no header in row 1; append needs the header [${columns.join(", ")}] there (use --mode replace or another tab)`,
    );
  }
  if (existing.length > 0 && !sameHeader(header, columns)) {
    throw limitError(
      `tab "${tab.title}" has the columns [${header.join(", ")}] but the table has [${columns.join(", ")}]; append needs the same columns (use --mode replace or another tab)`,
    );
  }
  // An empty tab gets the header too.
  const rows = existing.length > 0 ? encoded.slice(1) : encoded;
  const firstRow = existing.length + 1;
  const lastRow = firstRow + rows.length - 1;
  const grid = { rows: Math.max(2, tab.rowCount, lastRow), columns: Math.max(tab.columnCount, width) };
  checkCells(
    otherCells + grid.rows * grid.columns,
    `spreadsheet ${spreadsheet} with tab "${tab.title}" grown to ${grid.rows}×${grid.columns}`,
  );
  const chunks = chunkRows(rows, maxRequestBytes);
  const gridGrown = await growTab(api, spreadsheet, tab, grid);
  await writeChunks(api, spreadsheet, tab.title, chunks, firstRow, width);
  const dataFrom = existing.length > 0 ? firstRow : 2;
  return {
    gridGrown,
    valueRequests: chunks.length,
    range: lastRow >= dataFrom ? a1Range(tab.title, dataFrom, 1, lastRow, width) : "",
  };
}
