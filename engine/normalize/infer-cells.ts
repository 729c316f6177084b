import type { ColumnType } from "../../schema/table.js";
import type { CsvRecord } from "./csv.js";
import { isDate, isTimestamp } from "./text-types.js";

/** Cells that mean "no value" in a typed (non-text) column. */
const NULL_TOKENS = new Set(["-", "--", "n/a", "na", "null", "none", "nan"]);
const NUMBER = /^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const INTEGER = /^[-+]?\d+$/;

/**
 * A CSV cell as a numeric column reads it: `12.5%` → `12.5`, `1,234.50` → `1234.50`, `$3.20` →
 * `3.20`, null tokens → null. Anything else is returned as it is and fails typing with a reason.
 *
 * @example numericCell("12.5%") // "12.5"
 */
export function numericCell(cell: string | null): string | null {
  if (cell === null) return null;
  const t = cell.trim();
  if (t === "" || NULL_TOKENS.has(t.toLowerCase())) return null;
  let s = t.replace(/^([-+]?)[$€£¥]\s?/, "$1").replace(/\s?%$/, "");
  if (/^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, "");
  return s;
}

/** A CSV cell for a date, timestamp or boolean column: trimmed, null tokens → null. */
export function typedCell(cell: string | null): string | null {
  if (cell === null) return null;
  const t = cell.trim();
  return t === "" || NULL_TOKENS.has(t.toLowerCase()) ? null : t;
}

/**
 * The type of a column nobody declared, from sample cells: integer, number (decimals and
 * percentages), date, timestamp, else text. A column with no values yet is text.
 *
 * @example inferType(["12.5%", "7%", null]) // "number"
 */
export function inferType(cells: (string | null)[]): ColumnType {
  let seen = 0;
  let integer = true;
  let number = true;
  let date = true;
  let timestamp = true;
  for (const cell of cells) {
    const raw = typedCell(cell);
    if (raw === null) continue;
    seen++;
    const n = numericCell(raw);
    if (n === null || !NUMBER.test(n)) number = integer = false;
    else if (!INTEGER.test(n) || raw.endsWith("%")) integer = false;
    if (!isDate(raw)) date = false;
    if (!isTimestamp(raw, "optional")) timestamp = false;
    if (!number && !date && !timestamp) return "text";
  }
  if (seen === 0) return "text";
  return integer ? "integer" : number ? "number" : date ? "date" : timestamp ? "timestamp" : "text";
}

/** Types of sample columns, from the records of a first batch. */
export function inferColumns(names: string[], rows: CsvRecord[]): Map<string, ColumnType> {
  return new Map(names.map((n) => [n, inferType(rows.map((r) => r[n] ?? null))]));
}
