import { randomBytes } from "node:crypto";
import { a1Range } from "./a1.js";
import type { SheetsApi, SheetTab } from "./api.js";
import { type CellValue, type Chunk, chunkRows } from "./encode.js";
import { checkCells, type Grid, gridRange, gridRequest, growTab } from "./grid.js";
import { SHEETS_LIMITS } from "./limits.js";
import { createTab, deleteTab } from "./tabs.js";
import { writeChunks } from "./write-rows.js";

/** Where a push put its rows. */
export interface Placed {
  gridGrown: boolean;
  valueRequests: number;
  range: string;
  /** Replace mode: the table was written to a hidden tab first and swapped in at once. */
  staged?: boolean;
}

/**
 * Replace mode on an existing tab. The new table is written to a fresh hidden tab; only when
 * every row is there does one batchUpdate (atomic on Google's side) grow the tab, clear it, paste
 * the values in and delete the hidden tab. A push that fails half-way (the quota never came back,
 * say) leaves the old table as it was. Pasting into the same tab keeps its id, so formulas, charts
 * and formatting that point at it still work (renaming the new tab in would break them).
 * When the hidden copy would not fit under the cell limit, the tab is written in place.
 */
export async function replaceTab(
  api: SheetsApi,
  spreadsheet: string,
  tab: SheetTab,
  encoded: CellValue[][],
  width: number,
  otherCells: number,
  maxRequestBytes: number,
): Promise<Placed> {
  const grid = { rows: Math.max(2, tab.rowCount, encoded.length), columns: Math.max(tab.columnCount, width) };
  const cells = otherCells + grid.rows * grid.columns;
  checkCells(
    cells,
    `spreadsheet ${spreadsheet} with tab "${tab.title}" grown to ${grid.rows}×${grid.columns}`,
  );
  const chunks = chunkRows(encoded, maxRequestBytes);
  const gridGrown = grid.rows > tab.rowCount || grid.columns > tab.columnCount;
  const range = encoded.length > 1 ? a1Range(tab.title, 2, 1, encoded.length, width) : "";
  const placed = { gridGrown, valueRequests: chunks.length, range };
  if (cells + encoded.length * width <= SHEETS_LIMITS.cellsPerSpreadsheet) {
    await replaceStaged(api, spreadsheet, tab, grid, chunks, encoded.length, width);
    return { ...placed, staged: true };
  }
  await growTab(api, spreadsheet, tab, grid);
  await writeChunks(api, spreadsheet, tab.title, chunks, 1, width);
  await clearLeftovers(api, spreadsheet, tab, encoded.length, width);
  return { ...placed, staged: false };
}

async function replaceStaged(
  api: SheetsApi,
  spreadsheet: string,
  tab: SheetTab,
  grid: Grid,
  chunks: Chunk[],
  rows: number,
  width: number,
): Promise<void> {
  const staging = await createTab(api, spreadsheet, {
    title: `skillsync staging ${randomBytes(4).toString("hex")}`,
    rows,
    columns: width,
    frozenRows: 0,
    hidden: true,
  });
  try {
    await writeChunks(api, spreadsheet, staging.title, chunks, 1, width);
    const swap = [
      gridRequest(tab, grid),
      { updateCells: { range: gridRange(tab.sheetId, grid.rows, grid.columns), fields: "userEnteredValue" } },
      {
        copyPaste: {
          source: gridRange(staging.sheetId, rows, width),
          destination: gridRange(tab.sheetId, rows, width),
          pasteType: "PASTE_VALUES",
        },
      },
      { deleteSheet: { sheetId: staging.sheetId } },
    ];
    // The swap deletes the hidden tab: when it is gone, the swap landed.
    await api.batchUpdate(
      spreadsheet,
      swap,
      async () => !(await api.tabs(spreadsheet)).some((t) => t.sheetId === staging.sheetId),
    );
  } catch (err) {
    // The old table is untouched; the hidden copy goes too (best effort: the push failed anyway).
    await deleteTab(api, spreadsheet, staging.sheetId).catch(() => {});
    throw err;
  }
}

/** In-place replace: what the previous table left below or to the right of the new one is emptied. */
async function clearLeftovers(
  api: SheetsApi,
  spreadsheet: string,
  before: SheetTab,
  writtenRows: number,
  width: number,
): Promise<void> {
  const tab = before.title;
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
