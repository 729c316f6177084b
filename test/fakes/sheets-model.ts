/**
 * The state of the Sheets fake: spreadsheets, tabs with a grid, and cells. It enforces what the
 * real API enforces and the connector must respect: grid limits, the 10 million cell limit, the
 * 50,000 character cell limit, and trailing-empty trimming on reads. Written independently of the
 * connector's own A1 code, so the two cannot share a mistake.
 */

export type Cell = { value: string | number | boolean } | { formula: string };

export class FakeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = status === 400
      ? "INVALID_ARGUMENT"
      : status === 404
        ? "NOT_FOUND"
        : "FAILED_PRECONDITION",
  ) {
    super(message);
  }
}

export interface FakeTab {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  frozenRowCount: number;
  hidden: boolean;
  /** rows[r][c], 0-based; undefined is an empty cell. */
  rows: (Cell | undefined)[][];
  /** Cell notes by "row,column" (1-based); kept apart from values, as a paste of values leaves them. */
  notes?: Record<string, string> | undefined;
}

export interface FakeSpreadsheet {
  id: string;
  tabs: FakeTab[];
  nextSheetId: number;
}

export const CELL_LIMIT = 10_000_000;
const CHAR_LIMIT = 50_000;

/** A parsed range: 1-based inclusive bounds on one tab. */
export interface Rect {
  tab: FakeTab;
  r1: number;
  c1: number;
  r2: number;
  c2: number;
}

/** Google keeps titles unique regardless of case, and a range's tab name matches the same way. */
export function findTitle(book: FakeSpreadsheet, title: string): FakeTab | undefined {
  const lower = title.toLowerCase();
  return book.tabs.find((t) => t.title === title) ?? book.tabs.find((t) => t.title.toLowerCase() === lower);
}

function colNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function colLetters(n: number): string {
  let s = "";
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s;
  return s;
}

export function rectA1(r: Rect): string {
  return `'${r.tab.title.replaceAll("'", "''")}'!${colLetters(r.c1)}${r.r1}:${colLetters(r.c2)}${r.r2}`;
}

/** Parses `'My tab'!A2:C`, `Tab!1:1`, `Tab!A:A`, `Tab`, `A1:B2` (first tab) against a spreadsheet. */
export function parseRange(book: FakeSpreadsheet, range: string): Rect {
  let title: string | undefined;
  let cells = range;
  if (range.startsWith("'")) {
    let i = 1;
    let name = "";
    for (; i < range.length; i++) {
      if (range[i] === "'" && range[i + 1] === "'") {
        name += "'";
        i++;
      } else if (range[i] === "'") break;
      else name += range[i];
    }
    title = name;
    cells = range.slice(i + 1);
    if (cells.startsWith("!")) cells = cells.slice(1);
    else if (cells !== "") throw new FakeApiError(400, `Unable to parse range: ${range}`);
  } else if (range.includes("!")) {
    title = range.slice(0, range.lastIndexOf("!"));
    cells = range.slice(range.lastIndexOf("!") + 1);
  } else if (findTitle(book, range)) {
    title = range;
    cells = "";
  }
  const tab = title === undefined ? book.tabs[0] : findTitle(book, title);
  if (!tab) throw new FakeApiError(400, `Unable to parse range: ${range}`);
  if (cells === "") return { tab, r1: 1, c1: 1, r2: tab.rowCount, c2: tab.columnCount };
  const m = /^([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?$/i.exec(cells);
  if (!m || (!m[1] && !m[2])) throw new FakeApiError(400, `Unable to parse range: ${range}`);
  const single = m[3] === undefined && m[4] === undefined;
  const r1 = m[2] ? Number(m[2]) : 1;
  const c1 = m[1] ? colNumber(m[1]) : 1;
  const r2 = single ? (m[2] ? r1 : tab.rowCount) : m[4] ? Number(m[4]) : tab.rowCount;
  const c2 = single ? (m[1] ? c1 : tab.columnCount) : m[3] ? colNumber(m[3]) : tab.columnCount;
  if (r1 < 1 || c1 < 1 || r2 < r1 || c2 < c1) throw new FakeApiError(400, `Unable to parse range: ${range}`);
  if (r2 > tab.rowCount || c2 > tab.columnCount) {
    throw new FakeApiError(
      400,
      `Range (${rectA1({ tab, r1, c1, r2, c2 })}) exceeds grid limits. Max rows: ${tab.rowCount}, max columns: ${tab.columnCount}`,
    );
  }
  return { tab, r1, c1, r2, c2 };
}

function totalCells(book: FakeSpreadsheet): number {
  return book.tabs.reduce((n, t) => n + t.rowCount * t.columnCount, 0);
}

export function checkCellLimit(book: FakeSpreadsheet): void {
  if (totalCells(book) > CELL_LIMIT) {
    throw new FakeApiError(
      400,
      `This action would increase the number of cells in the workbook above the limit of ${CELL_LIMIT} cells.`,
    );
  }
}

/** A value from a request as a stored cell; RAW keeps text as text, USER_ENTERED parses it like typing. */
function toCell(v: unknown, input: "RAW" | "USER_ENTERED"): Cell | undefined | null {
  if (v === null) return null;
  if (typeof v === "string") {
    if (v.length > CHAR_LIMIT) {
      throw new FakeApiError(
        400,
        `Your input contains more than the maximum of ${CHAR_LIMIT} characters in a single cell.`,
      );
    }
    if (v === "") return undefined;
    if (input === "USER_ENTERED") {
      if (v.startsWith("=")) return { formula: v };
      if (/^-?\d+(\.\d+)?$/.test(v)) return { value: Number(v) };
      if (/^(true|false)$/i.test(v)) return { value: v.toUpperCase() === "TRUE" };
    }
    return { value: v };
  }
  if (typeof v === "number" || typeof v === "boolean") return { value: v };
  throw new FakeApiError(400, `Invalid value at 'data.values' (${typeof v})`);
}

/** Writes values from a rect's top-left corner; null leaves a cell as it is, as in the real API. */
export function writeValues(rect: Rect, values: unknown[][], input: "RAW" | "USER_ENTERED"): number {
  const width = rect.c2 - rect.c1 + 1;
  const height = rect.r2 - rect.r1 + 1;
  if (values.length > height || values.some((row) => row.length > width)) {
    throw new FakeApiError(
      400,
      `Requested writing within range [${rectA1(rect)}], but tried writing ${values.length} rows of up to ${Math.max(0, ...values.map((r) => r.length))} columns`,
    );
  }
  const cells = values.map((row) => row.map((v) => toCell(v, input)));
  let written = 0;
  cells.forEach((row, i) => {
    const r = rect.r1 - 1 + i;
    const target = rect.tab.rows[r] ?? [];
    rect.tab.rows[r] = target;
    row.forEach((cell, j) => {
      if (cell === null) return;
      target[rect.c1 - 1 + j] = cell;
      written++;
    });
  });
  return written;
}

export function clearRect(rect: Rect): void {
  for (let r = rect.r1 - 1; r < rect.r2; r++) {
    const row = rect.tab.rows[r];
    if (!row) continue;
    for (let c = rect.c1 - 1; c < rect.c2; c++) row[c] = undefined;
  }
}

export type Render = "FORMATTED_VALUE" | "UNFORMATTED_VALUE" | "FORMULA";

function render(cell: Cell | undefined, how: Render): unknown {
  if (!cell) return "";
  if ("formula" in cell) return how === "FORMULA" ? cell.formula : "#FAKE-FORMULA-RESULT";
  if (how !== "FORMATTED_VALUE") return cell.value;
  return typeof cell.value === "boolean" ? (cell.value ? "TRUE" : "FALSE") : String(cell.value);
}

/** The values of a rect as the API returns them: trailing empty cells and rows left out. */
export function readValues(rect: Rect, how: Render): unknown[][] {
  const out: unknown[][] = [];
  for (let r = rect.r1 - 1; r < rect.r2; r++) {
    const row: unknown[] = [];
    for (let c = rect.c1 - 1; c < rect.c2; c++) row.push(render(rect.tab.rows[r]?.[c], how));
    while (row.length && row[row.length - 1] === "") row.pop();
    out.push(row);
  }
  while (out.length && out[out.length - 1]!.length === 0) out.pop();
  return out;
}

/** Resizing the grid drops what falls outside it, as the real API does. */
export function resize(tab: FakeTab, rows: number, columns: number): void {
  tab.rowCount = rows;
  tab.columnCount = columns;
  tab.rows.length = Math.min(tab.rows.length, rows);
  for (const row of tab.rows) if (row && row.length > columns) row.length = columns;
}

/**
 * How `values.append` finds "the table" in its range. The reference says it looks for a table and
 * appends after its last row, starting at its first column, without saying where a table ends;
 * both readings seen in practice: the first block of consecutive non-empty rows, or the last one.
 */
export type AppendReading = "first-table" | "last-table";

/** Where `values.append` writes: the row after the chosen table, at the table's first filled column. */
export function appendStart(rect: Rect, reading: AppendReading): { row: number; column: number } {
  const used = (r: number) => rect.tab.rows[r - 1]?.slice(rect.c1 - 1, rect.c2).some((c) => c !== undefined);
  const blocks: { from: number; to: number }[] = [];
  for (let r = rect.r1; r <= Math.min(rect.r2, rect.tab.rows.length); r++) {
    if (!used(r)) continue;
    const last = blocks[blocks.length - 1];
    if (last && last.to === r - 1) last.to = r;
    else blocks.push({ from: r, to: r });
  }
  const block = reading === "first-table" ? blocks[0] : blocks[blocks.length - 1];
  if (!block) return { row: rect.r1, column: rect.c1 };
  let column = rect.c2;
  for (let r = block.from; r <= block.to; r++) {
    const row = rect.tab.rows[r - 1] ?? [];
    for (let c = rect.c1; c <= column; c++) if (row[c - 1] !== undefined) column = Math.min(column, c);
  }
  return { row: block.to + 1, column };
}

/** copyPaste: the source tiled over the destination, as the real API repeats a smaller source. */
export function pasteValues(source: Rect, destination: Rect): void {
  const h = source.r2 - source.r1 + 1;
  const w = source.c2 - source.c1 + 1;
  const cells = Array.from({ length: h }, (_, i) =>
    Array.from({ length: w }, (_, j) => source.tab.rows[source.r1 - 1 + i]?.[source.c1 - 1 + j]),
  );
  for (let r = destination.r1; r <= destination.r2; r++) {
    const row = destination.tab.rows[r - 1] ?? [];
    destination.tab.rows[r - 1] = row;
    for (let c = destination.c1; c <= destination.c2; c++) {
      const cell = cells[(r - destination.r1) % h]![(c - destination.c1) % w];
      row[c - 1] = cell && "formula" in cell ? { value: "#FAKE-FORMULA-RESULT" } : cell;
    }
  }
}

/** A GridRange of a batchUpdate request: 0-based, end exclusive, a missing bound means the grid's edge. */
export interface GridRange {
  sheetId?: number;
  startRowIndex?: number;
  endRowIndex?: number;
  startColumnIndex?: number;
  endColumnIndex?: number;
}

export function gridRect(book: FakeSpreadsheet, g: GridRange): Rect {
  const tab = book.tabs.find((t) => t.sheetId === (g.sheetId ?? 0));
  if (!tab) throw new FakeApiError(400, `No grid with id: ${g.sheetId}`);
  const r: Rect = {
    tab,
    r1: (g.startRowIndex ?? 0) + 1,
    c1: (g.startColumnIndex ?? 0) + 1,
    r2: g.endRowIndex ?? tab.rowCount,
    c2: g.endColumnIndex ?? tab.columnCount,
  };
  if (r.r2 > tab.rowCount || r.c2 > tab.columnCount || r.r1 > r.r2 || r.c1 > r.c2)
    throw new FakeApiError(400, `Range (${rectA1(r)}) exceeds grid limits.`);
  return r;
}
