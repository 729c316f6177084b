import type { FakeHtmlOutput } from "./html.js";

/** What the fakes need from the running execution. */
export interface FakeEnv {
  /** Charges simulated time to the current execution (and dies past its limit). */
  spend(ms: number): void;
  /** Milliseconds per cell written by setValues. */
  perCellMs: number;
  /** The kind of the current execution ("trigger" has no user interface). */
  kind(): string;
}

export type CellValue = string | number | boolean | Date;

const MAX_SPREADSHEET_CELLS = 10_000_000;
const MAX_CELL_CHARS = 50_000;

const isDate = (v: unknown): v is Date => Object.prototype.toString.call(v) === "[object Date]";

/**
 * What Sheets makes of a value written with setValues: like typing it. A leading apostrophe keeps
 * text as text; otherwise numbers, currency, percentages, booleans and dates are parsed and "=" starts
 * a formula. (The add-on must protect text from this.)
 */
function enterValue(v: unknown): { value: CellValue; formula?: string } {
  if (v === null || v === undefined) return { value: "" };
  if (typeof v === "number" || typeof v === "boolean" || isDate(v)) return { value: v };
  if (typeof v !== "string") throw new Error(`Exception: Cannot convert ${typeof v} to a cell value.`);
  if (v.length > MAX_CELL_CHARS) {
    throw new Error(
      `Exception: Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`,
    );
  }
  if (v.startsWith("'")) return { value: v.slice(1) };
  if (v.startsWith("=")) return { value: "#NAME?", formula: v };
  const t = v.trim();
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return { value: Number(t) };
  if (/^[$€£]\s?-?\d[\d,]*(\.\d+)?$/.test(t)) return { value: Number(t.replace(/[^\d.-]/g, "")) };
  if (/^-?\d+(\.\d+)?%$/.test(t)) return { value: Number(t.slice(0, -1)) / 100 };
  if (/^(true|false)$/i.test(t)) return { value: t.toLowerCase() === "true" };
  if (/^\d{4}-\d{2}-\d{2}/.test(t) && !Number.isNaN(Date.parse(t))) return { value: new Date(t) };
  return { value: v };
}

const columnName = (c: number): string => {
  let s = "";
  for (let n = c; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

function parseA1(a1: string): { row: number; col: number; rows: number; cols: number } {
  const m = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(a1.toUpperCase());
  if (!m) throw new Error(`Exception: Range not found: ${a1}`);
  const col = (s: string) => [...s].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  const r1 = Number(m[2]);
  const c1 = col(m[1]!);
  const r2 = m[4] ? Number(m[4]) : r1;
  const c2 = m[3] ? col(m[3]) : c1;
  return {
    row: Math.min(r1, r2),
    col: Math.min(c1, c2),
    rows: Math.abs(r2 - r1) + 1,
    cols: Math.abs(c2 - c1) + 1,
  };
}

export class FakeRange {
  constructor(
    private readonly sheet: FakeSheet,
    private readonly row: number,
    private readonly col: number,
    private readonly rows: number,
    private readonly cols: number,
  ) {}

  private each(fn: (r: number, c: number) => void): void {
    for (let r = 0; r < this.rows; r++) for (let c = 0; c < this.cols; c++) fn(this.row + r, this.col + c);
  }

  getValues(): CellValue[][] {
    this.sheet.env.spend(1);
    const out: CellValue[][] = [];
    for (let r = 0; r < this.rows; r++) {
      const line: CellValue[] = [];
      for (let c = 0; c < this.cols; c++) line.push(this.sheet.cellAt(this.row + r, this.col + c));
      out.push(line);
    }
    return out;
  }

  /** Shape-checked like the real one; nothing is written unless every value is acceptable. */
  setValues(values: unknown): this {
    this.sheet.env.spend(1);
    if (!Array.isArray(values))
      throw new Error(
        "Exception: The parameters (String) don't match the method signature for SpreadsheetApp.Range.setValues.",
      );
    if (values.length !== this.rows) {
      throw new Error(
        `Exception: The number of rows in the data does not match the number of rows in the range. The data has ${values.length} but the range has ${this.rows}.`,
      );
    }
    const entered = values.map((line: unknown) => {
      if (!Array.isArray(line) || line.length !== this.cols) {
        const n = Array.isArray(line) ? line.length : 0;
        throw new Error(
          `Exception: The number of columns in the data does not match the number of columns in the range. The data has ${n} but the range has ${this.cols}.`,
        );
      }
      return line.map(enterValue);
    });
    this.sheet.env.spend(this.rows * this.cols * this.sheet.env.perCellMs);
    entered.forEach((line, r) => {
      line.forEach((e, c) => {
        this.sheet.put(this.row + r, this.col + c, e.value, e.formula);
      });
    });
    return this;
  }

  setValue(v: unknown): this {
    return this.setValues(
      Array.from({ length: this.rows }, () => Array.from({ length: this.cols }, () => v)),
    );
  }

  clearContent(): this {
    this.sheet.env.spend(1);
    this.each((r, c) => this.sheet.put(r, c, ""));
    return this;
  }

  setFontWeight(weight: string | null): this {
    this.sheet.env.spend(1);
    this.each((r, c) => this.sheet.bold.set(`${r},${c}`, weight === "bold"));
    return this;
  }

  setNote(note: string): this {
    this.sheet.env.spend(1);
    this.sheet.notes.set(`${this.row},${this.col}`, String(note));
    return this;
  }

  getNote(): string {
    return this.sheet.notes.get(`${this.row},${this.col}`) ?? "";
  }

  getSheet(): FakeSheet {
    return this.sheet;
  }
  getRow(): number {
    return this.row;
  }
  getColumn(): number {
    return this.col;
  }
  getLastRow(): number {
    return this.row + this.rows - 1;
  }
  getLastColumn(): number {
    return this.col + this.cols - 1;
  }
  getNumRows(): number {
    return this.rows;
  }
  getNumColumns(): number {
    return this.cols;
  }
  getA1Notation(): string {
    const start = `${columnName(this.col)}${this.row}`;
    return this.rows === 1 && this.cols === 1
      ? start
      : `${start}:${columnName(this.getLastColumn())}${this.getLastRow()}`;
  }
}

export class FakeSheet {
  readonly cells = new Map<string, { value: CellValue; formula?: string | undefined }>();
  readonly notes = new Map<string, string>();
  readonly bold = new Map<string, boolean>();
  maxRows = 1000;
  maxCols = 26;
  frozenRows = 0;

  constructor(
    readonly env: FakeEnv,
    private readonly parent: FakeSpreadsheet,
    private name: string,
    private readonly id: number,
  ) {}

  cellAt(r: number, c: number): CellValue {
    return this.cells.get(`${r},${c}`)?.value ?? "";
  }

  put(r: number, c: number, value: CellValue, formula?: string): void {
    if (value === "" && !formula) this.cells.delete(`${r},${c}`);
    else this.cells.set(`${r},${c}`, { value, formula });
  }

  getName(): string {
    return this.name;
  }
  setName(name: string): this {
    this.name = name;
    return this;
  }
  getSheetId(): number {
    return this.id;
  }
  getParent(): FakeSpreadsheet {
    return this.parent;
  }
  getMaxRows(): number {
    return this.maxRows;
  }
  getMaxColumns(): number {
    return this.maxCols;
  }
  getFrozenRows(): number {
    return this.frozenRows;
  }
  setFrozenRows(n: number): this {
    this.env.spend(1);
    if (n > this.maxRows) throw new Error("Exception: You can't freeze all visible rows on the sheet.");
    this.frozenRows = n;
    return this;
  }
  activate(): this {
    this.parent.setActiveSheet(this);
    return this;
  }

  getLastRow(): number {
    let last = 0;
    for (const k of this.cells.keys()) last = Math.max(last, Number(k.split(",")[0]));
    return last;
  }

  getLastColumn(): number {
    let last = 0;
    for (const k of this.cells.keys()) last = Math.max(last, Number(k.split(",")[1]));
    return last;
  }

  getRange(a: number | string, col?: number, rows = 1, cols = 1): FakeRange {
    this.env.spend(1);
    const p = typeof a === "string" ? parseA1(a) : { row: a, col: col ?? Number.NaN, rows, cols };
    for (const [k, v] of Object.entries(p)) {
      if (!Number.isInteger(v) || v < 1)
        throw new Error(
          `Exception: The ${k === "rows" || k === "cols" ? "number of " : "starting "}${k} of the range must be at least 1.`,
        );
    }
    if (p.row + p.rows - 1 > this.maxRows || p.col + p.cols - 1 > this.maxCols) {
      throw new Error("Exception: The coordinates of the range are outside the dimensions of the sheet.");
    }
    return new FakeRange(this, p.row, p.col, p.rows, p.cols);
  }

  insertRowsAfter(after: number, howMany: number): this {
    this.env.spend(1);
    this.parent.checkGrowth(howMany * this.maxCols);
    this.shift(0, after, howMany);
    this.maxRows += howMany;
    return this;
  }

  insertColumnsAfter(after: number, howMany: number): this {
    this.env.spend(1);
    this.parent.checkGrowth(howMany * this.maxRows);
    this.shift(1, after, howMany);
    this.maxCols += howMany;
    return this;
  }

  private shift(axis: 0 | 1, after: number, by: number): void {
    const moved = [...this.cells.entries()].filter(([k]) => Number(k.split(",")[axis]) > after);
    for (const [k] of moved) this.cells.delete(k);
    for (const [k, v] of moved) {
      const rc = k.split(",").map(Number);
      rc[axis]! += by;
      this.cells.set(rc.join(","), v);
    }
  }

  /** Test helper: the user types these rows in, starting at (row, col). */
  type(row: number, col: number, rows: unknown[][]): void {
    rows.forEach((line, r) => {
      line.forEach((v, c) => {
        const e = enterValue(v);
        this.put(row + r, col + c, e.value, e.formula);
      });
    });
  }

  /** Test helper: the used area as values, row 1 first. */
  dump(): CellValue[][] {
    const rows = this.getLastRow();
    const cols = this.getLastColumn();
    return Array.from({ length: rows }, (_, r) =>
      Array.from({ length: cols }, (_, c) => this.cellAt(r + 1, c + 1)),
    );
  }
}

export class FakeSpreadsheet {
  readonly sheets: FakeSheet[] = [];
  readonly toasts: { title: string; message: string }[] = [];
  private active: FakeSheet;
  private activeRange: FakeRange | null = null;
  private nextId = 0;

  constructor(readonly env: FakeEnv) {
    this.active = this.addSheet("Sheet1");
  }

  /** Test helper: a tab, without spending execution time. */
  addSheet(name: string): FakeSheet {
    if (this.sheets.some((s) => s.getName() === name)) {
      throw new Error(
        `Exception: A sheet with the name "${name}" already exists. Please enter another name.`,
      );
    }
    if (name.length > 100) throw new Error("Exception: The sheet name cannot be longer than 100 characters.");
    this.checkGrowth(1000 * 26);
    const sheet = new FakeSheet(this.env, this, name, this.nextId);
    this.nextId += 1 + Math.floor(Math.random() * 1000);
    this.sheets.push(sheet);
    return sheet;
  }

  /** Test helper: what the user selected. */
  select(sheet: FakeSheet, a1: string): void {
    this.active = sheet;
    const p = parseA1(a1);
    this.activeRange = new FakeRange(sheet, p.row, p.col, p.rows, p.cols);
  }

  checkGrowth(cells: number): void {
    const used = this.sheets.reduce((n, s) => n + s.maxRows * s.maxCols, 0);
    if (used + cells > MAX_SPREADSHEET_CELLS) {
      throw new Error(
        `Exception: This action would increase the number of cells in the workbook above the limit of ${MAX_SPREADSHEET_CELLS} cells.`,
      );
    }
  }

  getSheets(): FakeSheet[] {
    this.env.spend(1);
    return [...this.sheets];
  }
  getSheetByName(name: string): FakeSheet | null {
    this.env.spend(1);
    return this.sheets.find((s) => s.getName() === name) ?? null;
  }
  insertSheet(name: string): FakeSheet {
    this.env.spend(5);
    const sheet = this.addSheet(name);
    this.setActiveSheet(sheet);
    return sheet;
  }
  deleteSheet(sheet: FakeSheet): void {
    this.env.spend(5);
    if (this.sheets.length === 1)
      throw new Error("Exception: You can't remove all the sheets in a document.");
    const i = this.sheets.indexOf(sheet);
    if (i < 0) throw new Error("Exception: The sheet is not in this spreadsheet.");
    this.sheets.splice(i, 1);
    if (this.active === sheet) this.setActiveSheet(this.sheets[0]!);
  }
  getActiveSheet(): FakeSheet {
    return this.active;
  }
  setActiveSheet(sheet: FakeSheet): FakeSheet {
    if (this.active !== sheet) this.activeRange = null;
    this.active = sheet;
    return sheet;
  }
  getActiveRange(): FakeRange {
    return this.activeRange ?? this.active.getRange(1, 1);
  }
  getActiveRangeList(): { getRanges(): FakeRange[] } | null {
    const range = this.activeRange;
    return range ? { getRanges: () => [range] } : null;
  }
  getSpreadsheetTimeZone(): string {
    return "Etc/UTC";
  }
  getId(): string {
    return "fake-spreadsheet-id";
  }
  getName(): string {
    return "Fake spreadsheet";
  }
  toast(message: string, title = "", _timeoutSeconds?: number): void {
    this.env.spend(1);
    this.toasts.push({ title, message: String(message) });
  }
}

export interface UiRecord {
  menus: { name: string; items: { label: string; fn: string }[] }[];
  alerts: { title: string; message: string }[];
  sidebars: FakeHtmlOutput[];
  dialogs: { title: string; html: FakeHtmlOutput }[];
}

/** SpreadsheetApp.getUi(): records what the user would see. */
export function fakeUi(env: FakeEnv, record: UiRecord) {
  const ButtonSet = { OK: "OK", OK_CANCEL: "OK_CANCEL", YES_NO: "YES_NO", YES_NO_CANCEL: "YES_NO_CANCEL" };
  const Button = { OK: "OK", CANCEL: "CANCEL", YES: "YES", NO: "NO", CLOSE: "CLOSE" };
  return {
    ButtonSet,
    Button,
    createMenu(name: string) {
      const menu = { name, items: [] as { label: string; fn: string }[] };
      const builder = {
        addItem(label: string, fn: string) {
          if (typeof fn !== "string") throw new Error("Exception: addItem takes the function's NAME.");
          menu.items.push({ label, fn });
          return builder;
        },
        addSeparator() {
          return builder;
        },
        addToUi() {
          record.menus.push(menu);
        },
      };
      return builder;
    },
    alert(a: string, b?: string, _buttons?: string) {
      env.spend(1);
      record.alerts.push(b === undefined ? { title: "", message: a } : { title: a, message: b });
      return Button.OK;
    },
    showSidebar(html: FakeHtmlOutput) {
      record.sidebars.push(html);
    },
    showModalDialog(html: FakeHtmlOutput, title: string) {
      record.dialogs.push({ title, html });
    },
  };
}
