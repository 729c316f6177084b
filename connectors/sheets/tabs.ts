import type { SheetsApi, SheetTab } from "./api.js";

/**
 * Google keeps tab titles unique regardless of case ("results" cannot be added beside "Results"),
 * so a title names the tab whose title equals it case-insensitively.
 */
function sameTitle(a: string, b: string): boolean {
  return a.toLocaleLowerCase("en") === b.toLocaleLowerCase("en");
}

export function findTab(tabs: readonly SheetTab[], title: string): SheetTab | undefined {
  return tabs.find((t) => t.title === title) ?? tabs.find((t) => sameTitle(t.title, title));
}

export interface NewTab {
  title: string;
  rows: number;
  columns: number;
  frozenRows: number;
  hidden?: boolean | undefined;
}

/**
 * Adds a tab. `addSheet` is not repeatable (a second one fails with "already exists"), so after
 * an ambiguous failure the tab list decides: a tab with that title counts as created.
 */
export async function createTab(api: SheetsApi, spreadsheet: string, tab: NewTab): Promise<SheetTab> {
  const replies = await api.batchUpdate(
    spreadsheet,
    [
      {
        addSheet: {
          properties: {
            title: tab.title,
            hidden: tab.hidden ?? false,
            gridProperties: { rowCount: tab.rows, columnCount: tab.columns, frozenRowCount: tab.frozenRows },
          },
        },
      },
    ],
    async () => findTab(await api.tabs(spreadsheet), tab.title) !== undefined,
  );
  const id = replies[0]?.addSheet?.properties?.sheetId;
  const made: SheetTab = {
    sheetId: id ?? -1,
    title: tab.title,
    rowCount: tab.rows,
    columnCount: tab.columns,
    frozenRowCount: tab.frozenRows,
    hidden: tab.hidden ?? false,
  };
  if (typeof id === "number") return made;
  // The answer was lost: the tab list has the id (and the grid it was really given).
  return findTab(await api.tabs(spreadsheet), tab.title) ?? made;
}

/** Deletes a tab; after an ambiguous failure, a tab no longer listed counts as deleted. */
export async function deleteTab(api: SheetsApi, spreadsheet: string, sheetId: number): Promise<void> {
  await api.batchUpdate(
    spreadsheet,
    [{ deleteSheet: { sheetId } }],
    async () => !(await api.tabs(spreadsheet)).some((t) => t.sheetId === sheetId),
  );
}
