import type { sheets_v4 } from "googleapis/build/src/apis/sheets/index.js";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { backoffDelay, parseRetryAfter, sleep } from "../skill-api/retry.js";
import { DEFAULT_SHEETS_ROOT_URL, type SheetsCredentials, sheetsAuthClient } from "./auth.js";
import { SHEETS_LIMITS } from "./limits.js";
import { WriteQuota } from "./quota.js";

/** A tab as the connector needs it. */
export interface SheetTab {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  frozenRowCount: number;
}

export interface RetryPolicy {
  /** Retries of a 429/503 before giving up (bounded: the quota refills each minute). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface SheetsApiOptions {
  credentials: SheetsCredentials;
  /** API root (default https://sheets.googleapis.com/); tests point it at a local fake. */
  rootUrl?: string | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** Write requests allowed per window (default 60 per minute, Google's per-user quota). */
  writesPerWindow?: number | undefined;
  windowMs?: number | undefined;
  timeoutMs?: number | undefined;
}

const DEFAULT_RETRY: RetryPolicy = { maxRetries: 7, baseDelayMs: 1000, maxDelayMs: 32_000 };

interface HttpFailure {
  status: number | undefined;
  message: string;
  retryAfterMs: number | undefined;
}

function failureOf(err: unknown): HttpFailure {
  const e = err as {
    status?: number;
    message?: string;
    response?: { status?: number; headers?: { get?(n: string): string | null }; data?: unknown };
  };
  const status = e.response?.status ?? e.status;
  const data = e.response?.data as { error?: { message?: string } } | undefined;
  const header = e.response?.headers?.get?.("retry-after") ?? undefined;
  return {
    status: typeof status === "number" ? status : undefined,
    message: redact(data?.error?.message ?? e.message ?? String(err)),
    retryAfterMs: parseRetryAfter(header ?? undefined),
  };
}

function sheetsError(f: HttpFailure, what: string, spreadsheet: string): SkillsyncError {
  const where = `${what} (spreadsheet ${spreadsheet})`;
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
    case 429:
    case 503:
      return new SkillsyncError(
        "SHEETS_UNAVAILABLE",
        `Sheets kept answering ${f.status} to ${where}: ${f.message}`,
      );
    default:
      return new SkillsyncError(
        "SHEETS_ERROR",
        `${where} failed${f.status ? ` with HTTP ${f.status}` : ""}: ${f.message}`,
      );
  }
}

/**
 * The few Sheets v4 calls the connector makes, behind a narrow interface: googleapis types stay
 * here. Every call backs off on 429 (quota: nothing was done) and, when safe to repeat, on 503;
 * writes are paced to the per-user quota.
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

  private async call<T>(
    what: string,
    spreadsheet: string,
    write: boolean,
    repeatable: boolean,
    fn: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (write) await this.quota.take();
      try {
        return await fn();
      } catch (err) {
        const f = failureOf(err);
        const again = f.status === 429 || (f.status === 503 && repeatable);
        if (!again || attempt >= this.retry.maxRetries) throw sheetsError(f, what, spreadsheet);
        const backoff = backoffDelay(attempt, this.retry.baseDelayMs, this.retry.maxDelayMs);
        await sleep(Math.min(this.retry.maxDelayMs, Math.max(backoff, f.retryAfterMs ?? 0)));
      }
    }
  }

  async tabs(spreadsheet: string): Promise<SheetTab[]> {
    const r = await this.call("reading the tabs", spreadsheet, false, true, () =>
      this.sheets.spreadsheets.get({ spreadsheetId: spreadsheet, fields: "sheets.properties" }),
    );
    return (r.data.sheets ?? []).map((s) => ({
      sheetId: s.properties?.sheetId ?? 0,
      title: s.properties?.title ?? "",
      rowCount: s.properties?.gridProperties?.rowCount ?? 0,
      columnCount: s.properties?.gridProperties?.columnCount ?? 0,
      frozenRowCount: s.properties?.gridProperties?.frozenRowCount ?? 0,
    }));
  }

  /** Structural changes (add a tab, grow the grid, freeze rows); each request sets absolute values, so repeating is safe. */
  async batchUpdate(
    spreadsheet: string,
    requests: sheets_v4.Schema$Request[],
  ): Promise<sheets_v4.Schema$Response[]> {
    const r = await this.call("changing the tabs", spreadsheet, true, true, () =>
      this.sheets.spreadsheets.batchUpdate({ spreadsheetId: spreadsheet, requestBody: { requests } }),
    );
    return r.data.replies ?? [];
  }

  /** Cell values of a range (trailing empty rows and cells are left out by the API). */
  async values(spreadsheet: string, range: string): Promise<unknown[][]> {
    const r = await this.call(`reading ${range}`, spreadsheet, false, true, () =>
      this.sheets.spreadsheets.values.get({
        spreadsheetId: spreadsheet,
        range,
        majorDimension: "ROWS",
        valueRenderOption: "UNFORMATTED_VALUE",
        dateTimeRenderOption: "FORMATTED_STRING",
      }),
    );
    return (r.data.values ?? []) as unknown[][];
  }

  /** Writes values at a fixed place: repeating it writes the same cells again. */
  async update(spreadsheet: string, range: string, values: unknown[][]): Promise<void> {
    await this.call(`writing ${range}`, spreadsheet, true, true, () =>
      this.sheets.spreadsheets.values.update({
        spreadsheetId: spreadsheet,
        range,
        valueInputOption: "RAW",
        requestBody: { range, majorDimension: "ROWS", values },
      }),
    );
  }

  /**
   * Appends below the table the API finds in `range`. A 503 is not repeated: the rows may have
   * landed, and appending them again would duplicate them.
   */
  async append(spreadsheet: string, range: string, values: unknown[][]): Promise<{ updatedRange: string }> {
    const r = await this.call(`appending to ${range}`, spreadsheet, true, false, () =>
      this.sheets.spreadsheets.values.append({
        spreadsheetId: spreadsheet,
        range,
        valueInputOption: "RAW",
        insertDataOption: "OVERWRITE",
        requestBody: { majorDimension: "ROWS", values },
      }),
    );
    return { updatedRange: r.data.updates?.updatedRange ?? "" };
  }

  async clear(spreadsheet: string, range: string): Promise<void> {
    await this.call(`clearing ${range}`, spreadsheet, true, true, () =>
      this.sheets.spreadsheets.values.clear({ spreadsheetId: spreadsheet, range, requestBody: {} }),
    );
  }
}
