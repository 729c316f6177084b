import type { SheetsApi, SheetTab } from "./api.js";
import { limitError, SHEETS_LIMITS } from "./limits.js";

export interface Grid {
  rows: number;
  columns: number;
}

/** Refuses, before anything is written, a spreadsheet that would pass Google's cell limit. */
export function checkCells(cells: number, what: string): void {
  if (cells > SHEETS_LIMITS.cellsPerSpreadsheet) {
    throw limitError(
      `${what} needs ${cells.toLocaleString("en")} cells; a spreadsheet holds at most ${SHEETS_LIMITS.cellsPerSpreadsheet.toLocaleString("en")} (push fewer rows or columns, e.g. with --sql)`,
    );
  }
}

/** Grid cells of tabs (empty ones count against the limit too). */
export const cellsOf = (tabs: readonly SheetTab[]) =>
  tabs.reduce((n, t) => n + t.rowCount * t.columnCount, 0);

/** A whole rectangle from the top-left corner of a tab, as batchUpdate requests take it (0-based, end exclusive). */
export const gridRange = (sheetId: number, rows: number, columns: number) => ({
  sheetId,
  startRowIndex: 0,
  endRowIndex: rows,
  startColumnIndex: 0,
  endColumnIndex: columns,
});

/** Sets an existing tab's grid size and frozen header (absolute values: safe to repeat). */
export function gridRequest(tab: SheetTab, grid: Grid) {
  return {
    updateSheetProperties: {
      properties: {
        sheetId: tab.sheetId,
        gridProperties: {
          rowCount: grid.rows,
          columnCount: grid.columns,
          frozenRowCount: Math.max(1, tab.frozenRowCount),
        },
      },
      fields: "gridProperties.rowCount,gridProperties.columnCount,gridProperties.frozenRowCount",
    },
  };
}

/**
 * Grows an existing tab to `grid` (a write past the grid fails on the real API) and freezes its
 * header. Returns whether the grid grew.
 */
export async function growTab(
  api: SheetsApi,
  spreadsheet: string,
  tab: SheetTab,
  grid: Grid,
): Promise<boolean> {
  const grown = grid.rows > tab.rowCount || grid.columns > tab.columnCount;
  if (!grown && tab.frozenRowCount >= 1) return false;
  await api.batchUpdate(spreadsheet, [gridRequest(tab, grid)]);
  return grown;
}
