import { oneAtATime } from "../../core/waiters.js";
import { SheetsApi, type SheetsApiOptions } from "./api.js";
import { notConfiguredError, sheetsConfigFromEnv } from "./google-auth.js";
import { SHEETS_LIMITS } from "./limits.js";
import { type PushResult, type PushTarget, pushTable, type TableData } from "./push.js";
import { createTab, findTab } from "./tabs.js";

/** Reads one column of values from a range (a pipeline input `sheet:`). */
export type SheetReader = (spreadsheet: string, range: string) => Promise<string[]>;

export interface SheetsConnectorOptions extends SheetsApiOptions {
  /** Largest request body with values (default 2,000,000 bytes, Google's advice). */
  maxRequestBytes?: number | undefined;
}

// One write at a time per spreadsheet, across every connector of this process.
const withSpreadsheetLock = oneAtATime();

function cellText(v: unknown): string {
  return v === null || v === undefined ? "" : String(v).trim();
}

/**
 * The Google Sheets connector: reads input lists from a range and pushes tables to a tab.
 *
 * @example
 * const sheets = await SheetsConnector.create({ credentials: { keyFile: "sa.json" } });
 * const keywords = await sheets.readList("1AbC…", "Sheet1!A2:A");
 * await sheets.pushTable({ spreadsheet: "1AbC…", tab: "Results" }, { columns: ["a"], rows: [[1]] });
 */
export class SheetsConnector {
  private constructor(
    private readonly api: SheetsApi,
    private readonly maxRequestBytes: number,
  ) {}

  static async create(o: SheetsConnectorOptions): Promise<SheetsConnector> {
    return new SheetsConnector(await SheetsApi.create(o), o.maxRequestBytes ?? SHEETS_LIMITS.requestBytes);
  }

  /** The connector configured by the environment, or undefined when Sheets is not set up. */
  static async fromEnv(
    env?: NodeJS.ProcessEnv,
    extra: Omit<SheetsConnectorOptions, "credentials" | "rootUrl"> = {},
  ): Promise<SheetsConnector | undefined> {
    const config = sheetsConfigFromEnv(env);
    return config ? SheetsConnector.create({ ...extra, ...config }) : undefined;
  }

  /** Like fromEnv, but a missing set-up is an error that says what to set. */
  static async requireFromEnv(env?: NodeJS.ProcessEnv): Promise<SheetsConnector> {
    const c = await SheetsConnector.fromEnv(env);
    if (!c) throw notConfiguredError();
    return c;
  }

  /** The values of a range, row by row (trailing empty rows and cells are not returned). */
  readRange(spreadsheet: string, range: string): Promise<unknown[][]> {
    return this.api.values(spreadsheet, range);
  }

  /** A range as an input list: every non-blank cell, row by row, trimmed. */
  async readList(spreadsheet: string, range: string): Promise<string[]> {
    const rows = await this.api.values(spreadsheet, range);
    return rows.flatMap((row) => row.map(cellText).filter((v) => v !== ""));
  }

  /** The reader the pipeline engine takes for `from: { sheet: … }` inputs. */
  reader(): SheetReader {
    return (spreadsheet, range) => this.readList(spreadsheet, range);
  }

  /**
   * Sets the note of a tab's header cell (A1), creating the tab when it is missing so that a first
   * refresh that failed still says why. Setting a note is repeatable, so it is retried like a value.
   */
  setHeaderNote(spreadsheet: string, tab: string, note: string): Promise<void> {
    return withSpreadsheetLock(spreadsheet, async () => {
      const found =
        findTab(await this.api.tabs(spreadsheet), tab) ??
        (await createTab(this.api, spreadsheet, { title: tab, rows: 1000, columns: 26, frozenRows: 0 }));
      const a1 = {
        sheetId: found.sheetId,
        startRowIndex: 0,
        endRowIndex: 1,
        startColumnIndex: 0,
        endColumnIndex: 1,
      };
      await this.api.batchUpdate(spreadsheet, [
        { updateCells: { range: a1, rows: [{ values: [{ note }] }], fields: "note" } },
      ]);
    });
  }

  /** Pushes a table to a tab; one push at a time per spreadsheet. */
  pushTable(target: PushTarget, data: TableData): Promise<PushResult> {
    return withSpreadsheetLock(target.spreadsheet, () =>
      pushTable(this.api, target, data, { maxRequestBytes: this.maxRequestBytes }),
    );
  }
}
