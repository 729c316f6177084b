import type { sheets_v4 } from "googleapis/build/src/apis/sheets/index.js";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { sleep } from "../skill-api/retry.js";
import { DEFAULT_SHEETS_ROOT_URL, type SheetsCredentials, sheetsAuthClient } from "./google-auth.js";
import { SHEETS_LIMITS } from "./limits.js";
import { WriteQuota } from "./quota.js";
import {
  DEFAULT_RETRY,
  failureOf,
  type HttpFailure,
  mayRetry,
  type RetryPolicy,
  retryDelay,
} from "./retry.js";

/** A tab as the connector needs it. */
export interface SheetTab {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  frozenRowCount: number;
  hidden: boolean;
}

export type { RetryPolicy } from "./retry.js";

export interface SheetsApiOptions {
  credentials: SheetsCredentials;
  /** API root (default https://sheets.googleapis.com/); tests point it at a local fake. */
  rootUrl?: string | undefined;
  /** Backoff on 429s and 5xx; tests shorten it along with the fake's quota window. */
  retry?: Partial<RetryPolicy> | undefined;
  /** Write requests allowed per window (default 60 per minute, Google's per-user quota). */
  writesPerWindow?: number | undefined;
  windowMs?: number | undefined;
  timeoutMs?: number | undefined;
}

/** One request: how to send it, and for a change that may have landed, how to tell that it did. */
interface CallSpec<T> {
  what: string;
  spreadsheet: string;
  write: boolean;
  send: () => Promise<T>;
  /**
   * For requests that must not be repeated blindly: reads the spreadsheet after an ambiguous
   * failure and returns the result when the change is there (undefined: send it again). Without
   * it, the request is one that can be repeated as it is.
   */
  landed?: (() => Promise<T | undefined>) | undefined;
}

function sheetsError(f: HttpFailure, what: string, spreadsheet: string): SkillsyncError {
  const where = `${what} (spreadsheet ${spreadsheet})`;
  if (f.kind !== "final") {
    return new SkillsyncError(
      "SHEETS_UNAVAILABLE",
      `Sheets kept answering ${f.status ?? "with a broken connection"} to ${where}: ${f.message}`,
    );
  }
  switch (f.status) {
    case 401:
      return new SkillsyncError(
        "SHEETS_AUTH",
        `Google refused the credentials for ${where}: ${f.message}`,
        ExitCode.auth,
      );
    case 403:
      return new SkillsyncError(
        "SHEETS_ACCESS",
        `no access for ${where}: share the spreadsheet with the service account's email (client_email in its key file) as an editor. Google said: ${f.message}`,
        ExitCode.auth,
      );
    case 404:
      return new SkillsyncError("SHEETS_NOT_FOUND", `not found: ${where}: ${f.message}`, ExitCode.usage);
    default:
      return new SkillsyncError(
        "SHEETS_ERROR",
        `${where} failed${f.status ? ` with HTTP ${f.status}` : ""}: ${f.message}`,
      );
  }
}

/**
 * The few Sheets v4 calls the connector makes, behind a narrow interface: googleapis types stay
 * here. A 429 (nothing was done) is always tried again; a 5xx or broken connection (the change
 * may have landed) is repeated only for requests that set absolute values, and otherwise checked
 * against the spreadsheet first. Writes are paced to the per-user quota.
 */
export class SheetsApi {
  private constructor(
    private readonly sheets: sheets_v4.Sheets,
    private readonly retry: RetryPolicy,
    private readonly quota: WriteQuota,
  ) {}

  /** @example const api = await SheetsApi.create({ credentials: { adc: true } }); */
  static async create(o: SheetsApiOptions): Promise<SheetsApi> {
    const { sheets } = await import("googleapis/build/src/apis/sheets/index.js");
    const auth = (await sheetsAuthClient(o.credentials)) as sheets_v4.Options["auth"];
    const client = sheets({
      version: "v4",
      ...(auth === undefined ? {} : { auth }),
      rootUrl: o.rootUrl ?? DEFAULT_SHEETS_ROOT_URL,
      // Our own backoff decides what is repeated; gaxios would also retry some POSTs.
      retry: false,
      timeout: o.timeoutMs ?? 120_000,
    });
    const quota = new WriteQuota(o.writesPerWindow ?? SHEETS_LIMITS.writesPerMinute, o.windowMs ?? 60_000);
    return new SheetsApi(client, { ...DEFAULT_RETRY, ...o.retry }, quota);
  }

  private async call<T>(c: CallSpec<T>): Promise<T> {
    let failingSince: number | undefined;
    for (let retry = 0; ; retry++) {
      if (c.write) await this.quota.take();
      try {
        return await c.send();
      } catch (err) {
        const f: HttpFailure = failureOf(err);
        failingSince ??= Date.now();
        if (f.kind === "final" || !mayRetry(this.retry, retry, Date.now() - failingSince))
          throw sheetsError(f, c.what, c.spreadsheet);
        if (f.kind === "ambiguous" && c.landed) {
          const done = await c.landed();
          if (done !== undefined) return done;
        }
        await sleep(retryDelay(retry, this.retry, f.retryAfterMs));
      }
    }
  }

  async tabs(spreadsheet: string): Promise<SheetTab[]> {
    const r = await this.call({
      what: "reading the tabs",
      spreadsheet,
      write: false,
      send: () => this.sheets.spreadsheets.get({ spreadsheetId: spreadsheet, fields: "sheets.properties" }),
    });
    return (r.data.sheets ?? []).map((s) => ({
      sheetId: s.properties?.sheetId ?? 0,
      title: s.properties?.title ?? "",
      rowCount: s.properties?.gridProperties?.rowCount ?? 0,
      columnCount: s.properties?.gridProperties?.columnCount ?? 0,
      frozenRowCount: s.properties?.gridProperties?.frozenRowCount ?? 0,
      hidden: s.properties?.hidden ?? false,
    }));
  }

  /**
   * Structural changes. Requests that set absolute values (grid size, frozen rows) are repeated
   * after an ambiguous failure; for the others (adding or deleting a tab) pass `landed`, which
   * reads the spreadsheet and says whether the change is already there.
   */
  async batchUpdate(
    spreadsheet: string,
    requests: sheets_v4.Schema$Request[],
    landed?: () => Promise<boolean>,
  ): Promise<sheets_v4.Schema$Response[]> {
    return this.call({
      what: "changing the tabs",
      spreadsheet,
      write: true,
      send: async () =>
        (
          await this.sheets.spreadsheets.batchUpdate({
            spreadsheetId: spreadsheet,
            requestBody: { requests },
          })
        ).data.replies ?? [],
      landed: landed && (async () => ((await landed()) ? [] : undefined)),
    });
  }

  /** Cell values of a range (trailing empty rows and cells are left out by the API). */
  async values(spreadsheet: string, range: string): Promise<unknown[][]> {
    const r = await this.call({
      what: `reading ${range}`,
      spreadsheet,
      write: false,
      send: () =>
        this.sheets.spreadsheets.values.get({
          spreadsheetId: spreadsheet,
          range,
          majorDimension: "ROWS",
          valueRenderOption: "UNFORMATTED_VALUE",
          dateTimeRenderOption: "FORMATTED_STRING",
        }),
    });
    return (r.data.values ?? []) as unknown[][];
  }

  /** Writes values at a fixed place: repeating it writes the same cells again. */
  async update(spreadsheet: string, range: string, values: unknown[][]): Promise<void> {
    await this.call({
      what: `writing ${range}`,
      spreadsheet,
      write: true,
      send: () =>
        this.sheets.spreadsheets.values.update({
          spreadsheetId: spreadsheet,
          range,
          valueInputOption: "RAW",
          requestBody: { range, majorDimension: "ROWS", values },
        }),
    });
  }

  async clear(spreadsheet: string, range: string): Promise<void> {
    await this.call({
      what: `clearing ${range}`,
      spreadsheet,
      write: true,
      send: () =>
        this.sheets.spreadsheets.values.clear({ spreadsheetId: spreadsheet, range, requestBody: {} }),
    });
  }
}
