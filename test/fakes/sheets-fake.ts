import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AppendReading,
  appendStart,
  CELL_LIMIT,
  type Cell,
  checkCellLimit,
  clearRect,
  FakeApiError,
  type FakeSpreadsheet,
  type FakeTab,
  findTitle,
  type GridRange,
  gridRect,
  parseRange,
  pasteValues,
  type Render,
  readValues,
  rectA1,
  resize,
  writeValues,
} from "./sheets-model.js";

/**
 * A local fake of the Sheets v4 endpoints the connector uses, over real HTTP on 127.0.0.1:
 * values get/update/batchUpdate/append/clear, spreadsheets get/batchUpdate (addSheet,
 * updateSheetProperties, appendDimension, deleteSheet, updateCells clearing a range or setting notes, copyPaste).
 * Stateful; enforces grid limits, the cell limits, case-insensitive unique tab titles, a payload
 * size cap and, when set, a per-window write quota (429 until the window refills); records every
 * request; answers injected 429s/503s (503s also after the change landed).
 */
interface FakeRequest {
  method: string;
  /** Decoded path, e.g. `/v4/spreadsheets/s1/values/'Tab'!A1:B2`. */
  path: string;
  query: Record<string, string>;
  bytes: number;
  write: boolean;
  status: number;
  spreadsheet: string | undefined;
}

interface FaultOptions {
  status?: 429 | 503;
  /** Only write requests get the fault (reads pass). */
  writesOnly?: boolean;
  /** Do the work, then answer with the fault (the client cannot know it landed). */
  afterApplying?: boolean;
  /** Only requests whose decoded path matches get the fault. */
  path?: RegExp;
  /** Let this many matching requests through first (e.g. to hit the second batchUpdate). */
  skip?: number;
}

/** Google's per-user write quota, with a window tests can shorten (Google's is a minute). */
interface WriteQuotaSpec {
  writes: number;
  windowMs: number;
  /** Send Retry-After (whole seconds until the window refills) with each 429. */
  retryAfter?: boolean;
}

interface FakeTabSpec {
  title: string;
  hidden?: boolean | undefined;
  rowCount?: number | undefined;
  columnCount?: number | undefined;
  frozenRowCount?: number | undefined;
  values?: unknown[][];
}

export interface SheetsFake {
  /** API root for the connector's `rootUrl`. */
  url: string;
  token: string;
  requests: FakeRequest[];
  /** The most write requests seen in flight at once for one spreadsheet. */
  maxConcurrentWrites(): number;
  createSpreadsheet(id: string, tabs?: FakeTabSpec[]): void;
  /** Makes a spreadsheet answer 403 (not shared with the caller). */
  deny(id: string): void;
  tab(id: string, title: string): FakeTab | undefined;
  /** Tab titles in order, hidden ones marked `(hidden)`. */
  titles(id: string): string[];
  /** A tab's values as UNFORMATTED reads return them (trailing empties trimmed). */
  values(id: string, title: string): unknown[][];
  cell(id: string, title: string, row: number, column: number): Cell | undefined;
  /** A cell's note (1-based; A1 by default), undefined when it has none. */
  note(id: string, title: string, row?: number, column?: number): string | undefined;
  failNext(count: number, options?: FaultOptions): void;
  setWriteQuota(quota: WriteQuotaSpec | undefined): void;
  setAppendReading(reading: AppendReading): void;
  setLatency(ms: number): void;
  stop(): Promise<void>;
}

interface SheetRequest {
  properties?: {
    sheetId?: number;
    title?: string;
    hidden?: boolean;
    gridProperties?: { rowCount?: number; columnCount?: number; frozenRowCount?: number };
  };
  fields?: string;
  sheetId?: number;
  dimension?: string;
  length?: number;
  range?: GridRange;
  rows?: unknown[];
  source?: GridRange;
  destination?: GridRange;
  pasteType?: string;
}

interface Body {
  requests?: Record<string, unknown>[];
  data?: { range: string; values?: unknown[][] }[];
  values?: unknown[][];
  valueInputOption?: string;
}

function googleError(res: ServerResponse, status: number, message: string, reason: string): void {
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
  res.end(JSON.stringify({ error: { code: status, message, status: reason } }));
}

export async function startSheetsFake(
  o: { token?: string; maxBodyBytes?: number } = {},
): Promise<SheetsFake> {
  const token = o.token ?? "fake-sheets-token-0123456789";
  const maxBody = o.maxBodyBytes ?? 2 * 1024 * 1024;
  const books = new Map<string, FakeSpreadsheet>();
  const denied = new Set<string>();
  const requests: FakeRequest[] = [];
  const faults: (Required<Omit<FaultOptions, "path">> & { path: RegExp | undefined })[] = [];
  const faultFor = (write: boolean, path: string) => {
    const i = faults.findIndex((f) => (write || !f.writesOnly) && (!f.path || f.path.test(path)));
    const f = faults[i];
    if (!f) return undefined;
    if (f.skip > 0) {
      f.skip--;
      return undefined;
    }
    return faults.splice(i, 1)[0];
  };
  const inFlight = new Map<string, number>();
  let maxWrites = 0;
  let latency = 0;
  let quota: WriteQuotaSpec | undefined;
  let quotaWindow = { start: 0, used: 0 };
  let appendReading: AppendReading = "last-table";

  /** Counts a write against the quota; returns the ms until it refills when none is left. */
  const overQuota = (): number | undefined => {
    if (!quota) return undefined;
    const now = Date.now();
    if (now - quotaWindow.start >= quota.windowMs) quotaWindow = { start: now, used: 0 };
    if (quotaWindow.used < quota.writes) {
      quotaWindow.used++;
      return undefined;
    }
    return quotaWindow.start + quota.windowMs - now;
  };

  const book = (id: string) => {
    if (denied.has(id))
      throw new FakeApiError(403, "The caller does not have permission", "PERMISSION_DENIED");
    const b = books.get(id);
    if (!b) throw new FakeApiError(404, "Requested entity was not found.");
    return b;
  };

  const addTab = (b: FakeSpreadsheet, spec: FakeTabSpec): FakeTab => {
    if (findTitle(b, spec.title)) {
      throw new FakeApiError(
        400,
        `A sheet with the name "${spec.title}" already exists. Please enter another name.`,
      );
    }
    const tab: FakeTab = {
      sheetId: b.nextSheetId++,
      title: spec.title,
      rowCount: spec.rowCount ?? 1000,
      columnCount: spec.columnCount ?? 26,
      frozenRowCount: spec.frozenRowCount ?? 0,
      hidden: spec.hidden ?? false,
      rows: [],
    };
    b.tabs.push(tab);
    return tab;
  };

  const props = (t: FakeTab, index: number) => ({
    sheetId: t.sheetId,
    title: t.title,
    index,
    sheetType: "GRID",
    ...(t.hidden ? { hidden: true } : {}),
    gridProperties: {
      rowCount: t.rowCount,
      columnCount: t.columnCount,
      ...(t.frozenRowCount ? { frozenRowCount: t.frozenRowCount } : {}),
    },
  });

  function batchUpdate(b: FakeSpreadsheet, body: Body) {
    // All or nothing: work on a copy of the tab list and their grids, then commit.
    const snapshot = b.tabs.map((t) => ({
      ...t,
      rows: t.rows.map((r) => (r ? [...r] : r)),
      notes: { ...t.notes },
    }));
    const staged: FakeSpreadsheet = { ...b, tabs: snapshot };
    const replies = (body.requests ?? []).map((req) => {
      const [kind, arg] = Object.entries(req)[0] ?? [];
      const a = (arg ?? {}) as SheetRequest;
      if (kind === "addSheet") {
        const p = a.properties ?? {};
        const g = p.gridProperties ?? {};
        const tab = addTab(staged, {
          title: p.title ?? `Sheet${staged.nextSheetId}`,
          rowCount: g.rowCount,
          columnCount: g.columnCount,
          frozenRowCount: g.frozenRowCount,
          hidden: p.hidden,
        });
        if (tab.frozenRowCount >= tab.rowCount) {
          throw new FakeApiError(400, "You can't freeze all visible rows on the sheet.");
        }
        return { addSheet: { properties: props(tab, staged.tabs.length - 1) } };
      }
      if (kind === "updateSheetProperties") {
        const p = a.properties ?? {};
        const tab = staged.tabs.find((t) => t.sheetId === p.sheetId);
        if (!tab) throw new FakeApiError(400, `No grid with id: ${p.sheetId}`);
        const fields = String(a.fields ?? "")
          .split(",")
          .map((f) => f.trim());
        const has = (f: string) =>
          fields.includes("*") || fields.includes(f) || fields.includes("gridProperties");
        if (!fields[0])
          throw new FakeApiError(400, "At least one field must be updated, but none are specified.");
        const g = p.gridProperties ?? {};
        if (has("title") && p.title) tab.title = p.title;
        if (has("hidden")) tab.hidden = p.hidden ?? false;
        resize(
          tab,
          has("gridProperties.rowCount") ? (g.rowCount ?? tab.rowCount) : tab.rowCount,
          has("gridProperties.columnCount") ? (g.columnCount ?? tab.columnCount) : tab.columnCount,
        );
        if (has("gridProperties.frozenRowCount")) tab.frozenRowCount = g.frozenRowCount ?? 0;
        if (tab.frozenRowCount >= tab.rowCount)
          throw new FakeApiError(400, "You can't freeze all visible rows on the sheet.");
        return {};
      }
      if (kind === "appendDimension") {
        const tab = staged.tabs.find((t) => t.sheetId === a.sheetId);
        if (!tab) throw new FakeApiError(400, `No grid with id: ${a.sheetId}`);
        if (a.dimension === "ROWS") resize(tab, tab.rowCount + Number(a.length), tab.columnCount);
        else resize(tab, tab.rowCount, tab.columnCount + Number(a.length));
        return {};
      }
      if (kind === "deleteSheet") {
        if (!staged.tabs.some((t) => t.sheetId === a.sheetId))
          throw new FakeApiError(400, `No grid with id: ${a.sheetId}`);
        staged.tabs = staged.tabs.filter((t) => t.sheetId !== a.sheetId);
        if (!staged.tabs.length)
          throw new FakeApiError(400, "You can't remove all the sheets in a document.");
        return {};
      }
      if (kind === "updateCells" && a.range && a.rows?.length) return setNotes(staged, a);
      if (kind === "updateCells") {
        // Or the form that clears: a range, no rows, the fields to clear.
        if (!a.range) throw new FakeApiError(400, "the fake only clears or sets notes with updateCells");
        if (!a.fields)
          throw new FakeApiError(400, "At least one field must be updated, but none are specified.");
        if (a.fields === "*" || a.fields.includes("userEnteredValue")) clearRect(gridRect(staged, a.range));
        return {};
      }
      if (kind === "copyPaste") {
        if (!a.source || !a.destination)
          throw new FakeApiError(400, "copyPaste needs a source and a destination");
        if (a.pasteType !== "PASTE_VALUES") throw new FakeApiError(400, `the fake only pastes values`);
        pasteValues(gridRect(staged, a.source), gridRect(staged, a.destination));
        return {};
      }
      throw new FakeApiError(400, `the fake does not support the request ${kind}`);
    });
    checkCellLimit(staged);
    b.tabs = staged.tabs;
    b.nextSheetId = staged.nextSheetId;
    return { spreadsheetId: b.id, replies };
  }

  /** updateCells with rows and `fields: "note"`: each cell's note set (an empty one removed). */
  function setNotes(staged: FakeSpreadsheet, a: SheetRequest) {
    if (a.fields !== "note") throw new FakeApiError(400, "the fake only sets notes with updateCells rows");
    const r = gridRect(staged, a.range!);
    r.tab.notes ??= {};
    const notes = r.tab.notes;
    (a.rows as { values?: { note?: string }[] }[]).forEach((row, i) => {
      (row.values ?? []).forEach((cell, j) => {
        if (r.r1 + i > r.r2 || r.c1 + j > r.c2) throw new FakeApiError(400, "rows go past the range");
        const at = `${r.r1 + i},${r.c1 + j}`;
        if (cell.note) notes[at] = cell.note;
        else delete notes[at];
      });
    });
    return {};
  }

  function valueInput(q: Record<string, string>, body?: Body): "RAW" | "USER_ENTERED" {
    const v = q["valueInputOption"] ?? body?.valueInputOption;
    if (v !== "RAW" && v !== "USER_ENTERED") {
      throw new FakeApiError(400, "'valueInputOption' is required but not specified");
    }
    return v;
  }

  function route(method: string, path: string, q: Record<string, string>, body: Body | undefined): unknown {
    let m = /^\/v4\/spreadsheets\/([^/:]+)$/.exec(path);
    if (m && method === "GET") {
      const b = book(m[1]!);
      return {
        spreadsheetId: b.id,
        properties: { title: b.id },
        sheets: b.tabs.map((t, i) => ({ properties: props(t, i) })),
      };
    }
    m = /^\/v4\/spreadsheets\/([^/:]+):batchUpdate$/.exec(path);
    if (m && method === "POST") return batchUpdate(book(m[1]!), body ?? {});
    m = /^\/v4\/spreadsheets\/([^/:]+)\/values:batchUpdate$/.exec(path);
    if (m && method === "POST") {
      const b = book(m[1]!);
      const input = valueInput(q, body);
      const data = body?.data ?? [];
      const rects = data.map((d) => parseRange(b, d.range));
      let cells = 0;
      data.forEach((d, i) => {
        cells += writeValues(rects[i]!, d.values ?? [], input);
      });
      return { spreadsheetId: b.id, totalUpdatedCells: cells };
    }
    m = /^\/v4\/spreadsheets\/([^/:]+)\/values\/(.+?)(:append|:clear)?$/.exec(path);
    if (!m) throw new FakeApiError(404, `no such endpoint: ${method} ${path}`);
    const b = book(m[1]!);
    const rect = parseRange(b, m[2]!);
    const op = m[3];
    if (!op && method === "GET") {
      const values = readValues(rect, (q["valueRenderOption"] ?? "FORMATTED_VALUE") as Render);
      return { range: rectA1(rect), majorDimension: "ROWS", ...(values.length ? { values } : {}) };
    }
    if (!op && method === "PUT") {
      const input = valueInput(q);
      const values = body?.values ?? [];
      const cells = writeValues(rect, values, input);
      return {
        spreadsheetId: b.id,
        updatedRange: rectA1(rect),
        updatedRows: values.length,
        updatedCells: cells,
      };
    }
    if (op === ":append" && method === "POST") {
      const input = valueInput(q);
      const values = body?.values ?? [];
      const start = appendStart(rect, appendReading);
      const width = Math.max(1, ...values.map((r) => r.length));
      const target = {
        tab: rect.tab,
        r1: start.row,
        c1: start.column,
        r2: start.row + values.length - 1,
        c2: start.column + width - 1,
      };
      // values.append adds the rows and columns it needs (within the cell limit).
      resize(rect.tab, Math.max(rect.tab.rowCount, target.r2), Math.max(rect.tab.columnCount, target.c2));
      checkCellLimit(b);
      const cells = writeValues(target, values, input);
      return {
        spreadsheetId: b.id,
        updates: { updatedRange: rectA1(target), updatedRows: values.length, updatedCells: cells },
      };
    }
    if (op === ":clear" && method === "POST") {
      clearRect(rect);
      return { spreadsheetId: b.id, clearedRange: rectA1(rect) };
    }
    throw new FakeApiError(404, `no such endpoint: ${method} ${path}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = decodeURIComponent(url.pathname);
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? "GET";
    const write = method !== "GET";
    const spreadsheet = /^\/v4\/spreadsheets\/([^/:]+)/.exec(path)?.[1];
    const entry: FakeRequest = { method, path, query, bytes: 0, write, status: 0, spreadsheet };
    requests.push(entry);
    const key = spreadsheet ?? "";
    if (write) {
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      maxWrites = Math.max(maxWrites, inFlight.get(key)!);
    }
    const reply = (status: number, body: unknown) => {
      entry.status = status;
      res.writeHead(status, { "content-type": "application/json; charset=UTF-8" });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      let tooBig = false;
      for await (const c of req) {
        entry.bytes += (c as Buffer).length;
        if (entry.bytes > maxBody) tooBig = true;
        else chunks.push(c as Buffer);
      }
      if (latency) await new Promise((r) => setTimeout(r, latency));
      if (req.headers.authorization !== `Bearer ${token}`) {
        entry.status = 401;
        return googleError(res, 401, "Request had invalid authentication credentials.", "UNAUTHENTICATED");
      }
      if (tooBig) {
        entry.status = 413;
        return googleError(
          res,
          413,
          `Request payload size exceeds the limit: ${maxBody} bytes.`,
          "INVALID_ARGUMENT",
        );
      }
      const wait = write ? overQuota() : undefined;
      if (wait !== undefined) {
        entry.status = 429;
        if (quota?.retryAfter) res.setHeader("retry-after", String(Math.max(1, Math.ceil(wait / 1000))));
        return googleError(
          res,
          429,
          "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user'.",
          "RESOURCE_EXHAUSTED",
        );
      }
      const fault = faultFor(write, path);
      if (fault && !fault.afterApplying) {
        entry.status = fault.status;
        return googleError(
          res,
          fault.status,
          fault.status === 429
            ? "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user'."
            : "The service is currently unavailable.",
          fault.status === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE",
        );
      }
      const text = Buffer.concat(chunks).toString("utf8");
      const result = route(method, path, query, text ? (JSON.parse(text) as Body) : undefined);
      if (fault) {
        entry.status = fault.status;
        return googleError(res, fault.status, "The service is currently unavailable.", "UNAVAILABLE");
      }
      reply(200, result);
    } catch (err) {
      if (err instanceof FakeApiError) {
        entry.status = err.status;
        return googleError(res, err.status, err.message, err.reason);
      }
      entry.status = 500;
      googleError(res, 500, err instanceof Error ? err.message : String(err), "INTERNAL");
    } finally {
      if (write) inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/`,
    token,
    requests,
    maxConcurrentWrites: () => maxWrites,
    createSpreadsheet(id, tabs = [{ title: "Sheet1" }]) {
      const b: FakeSpreadsheet = { id, tabs: [], nextSheetId: 0 };
      for (const spec of tabs) {
        const tab = addTab(b, spec);
        if (spec.values)
          writeValues({ tab, r1: 1, c1: 1, r2: tab.rowCount, c2: tab.columnCount }, spec.values, "RAW");
      }
      if (b.tabs.reduce((n, t) => n + t.rowCount * t.columnCount, 0) > CELL_LIMIT)
        throw new Error("over the cell limit");
      books.set(id, b);
    },
    deny: (id) => void denied.add(id),
    tab: (id, title) => books.get(id)?.tabs.find((t) => t.title === title),
    titles: (id) => (books.get(id)?.tabs ?? []).map((t) => (t.hidden ? `${t.title} (hidden)` : t.title)),
    values(id, title) {
      const tab = books.get(id)?.tabs.find((t) => t.title === title);
      if (!tab) return [];
      return readValues({ tab, r1: 1, c1: 1, r2: tab.rowCount, c2: tab.columnCount }, "UNFORMATTED_VALUE");
    },
    cell: (id, title, row, column) =>
      books.get(id)?.tabs.find((t) => t.title === title)?.rows[row - 1]?.[column - 1],
    note: (id, title, row = 1, column = 1) =>
      books.get(id)?.tabs.find((t) => t.title === title)?.notes?.[`${row},${column}`],
    failNext(count, options = {}) {
      for (let i = 0; i < count; i++) {
        faults.push({
          status: options.status ?? 429,
          writesOnly: options.writesOnly ?? false,
          afterApplying: options.afterApplying ?? false,
          path: options.path,
          skip: options.skip ?? 0,
        });
      }
    },
    setWriteQuota(q) {
      quota = q;
      quotaWindow = { start: 0, used: 0 };
    },
    setAppendReading(reading) {
      appendReading = reading;
    },
    setLatency: (ms) => {
      latency = ms;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
