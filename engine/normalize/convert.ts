import type { TRANSFORMS } from "../../schema/pipeline.js";
import type { ColumnType } from "../../schema/table.js";
import { companyName, docdbNumber } from "./name-forms.js";

export type Transform = (typeof TRANSFORMS)[number];

/** A value that cannot become its column's type; the record goes to the rejects table with this reason. */
export class ConversionError extends Error {}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Arithmetic, not a Date per value. Years below 100 stay refused, as Date.UTC reads them as 19xx.
function validDate(y: number, m: number, d: number): boolean {
  if (y < 100 || m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : DAYS[m - 1]!);
}

function fromYmd(value: unknown): string | null {
  const s = String(value);
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3])))
    throw new ConversionError(`"${s}" is not a yyyymmdd date`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * Applies a named transform before typing. `min` and `max` type each value of a list for the
 * column (`type`) first, so dates, times and numbers compare as what they are.
 */
export function applyTransform(
  value: unknown,
  transform: Transform | undefined,
  type: ColumnType = "text",
): unknown {
  if (transform === undefined || value === null || value === undefined) return value;
  switch (transform) {
    case "yyyymmdd":
      return value === "" || value === 0 ? null : fromYmd(value);
    case "money": {
      if (typeof value === "number") return value;
      const cleaned = String(value).replace(/[^0-9.,-]/g, "");
      // "1.234,56" (comma decimals) vs "1,234.56": the last separator is the decimal one.
      const normal =
        /,\d{1,2}$/.test(cleaned) && !/\.\d{1,2}$/.test(cleaned)
          ? cleaned.replace(/\./g, "").replace(",", ".")
          : cleaned.replace(/,/g, "");
      if (normal === "" || Number.isNaN(Number(normal)))
        throw new ConversionError(`"${String(value)}" is not an amount`);
      return Number(normal);
    }
    case "percent": {
      if (typeof value === "number") return value;
      const n = Number(String(value).replace(/%\s*$/, "").trim());
      if (Number.isNaN(n)) throw new ConversionError(`"${String(value)}" is not a percentage`);
      return n;
    }
    case "first":
      return Array.isArray(value) ? (value[0] ?? null) : value;
    case "join":
      return Array.isArray(value)
        ? value.map((v) => (v && typeof v === "object" ? nameOf(v) : String(v))).join("; ")
        : value;
    case "name":
      return Array.isArray(value) ? value.map(nameOf) : nameOf(value);
    case "lower":
      return String(value).toLowerCase();
    case "upper":
      return String(value).toUpperCase();
    case "trim":
      return String(value).trim();
    case "docdb":
      return docdbNumber(value);
    case "company_name":
      return companyName(value);
    case "min":
    case "max":
      return extreme(value, type, transform);
  }
}

/** The least (`min`) or greatest (`max`) value of a list, typed for the column; nulls are skipped. */
function extreme(value: unknown, type: ColumnType, which: "min" | "max"): unknown {
  let best: unknown = null;
  // Typed values compare as such: numbers as numbers, ISO dates and times as text (a decimal's
  // exact text as its number).
  const key = (v: unknown) => (type === "decimal" ? Number(v) : (v as number));
  for (const v of Array.isArray(value) ? value : [value]) {
    const typed = toColumn(v, type);
    if (typed === null) continue;
    if (best === null || (which === "min" ? key(typed) < key(best) : key(typed) > key(best))) best = typed;
  }
  return best;
}

function nameOf(v: unknown): unknown {
  return v && typeof v === "object" && "name" in v ? (v as { name: unknown }).name : v;
}

/** A number, or numeric text; NaN for anything else (blank text included). */
function numeric(value: unknown): number {
  if (typeof value === "number") return value;
  return typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
}

/** Types a value for its column; throws ConversionError when it cannot. */
export function toColumn(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "text":
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    case "integer": {
      const n = numeric(value);
      if (!Number.isInteger(n)) throw new ConversionError(`${JSON.stringify(value)} is not an integer`);
      return n;
    }
    case "number":
    case "decimal": {
      const n = numeric(value);
      if (!Number.isFinite(n)) throw new ConversionError(`${JSON.stringify(value)} is not a number`);
      return n;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === 1 || value === "1" || value === "true" || value === "TRUE" || value === "yes")
        return true;
      if (value === 0 || value === "0" || value === "false" || value === "FALSE" || value === "no")
        return false;
      throw new ConversionError(`${JSON.stringify(value)} is not a boolean`);
    case "date": {
      if (typeof value === "number" || /^\d{8}$/.test(String(value))) return fromYmd(value);
      const m = DATE.exec(String(value));
      if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3])))
        throw new ConversionError(`"${String(value)}" is not a date`);
      return `${m[1]}-${m[2]}-${m[3]}`;
    }
    case "timestamp": {
      const t = typeof value === "number" ? new Date(value) : new Date(String(value));
      if (Number.isNaN(t.getTime())) throw new ConversionError(`"${String(value)}" is not a timestamp`);
      return t.toISOString();
    }
    case "json":
      return value;
  }
}

/** `available_date` → `availableDate`: record members are camelCase, columns snake_case. */
export const camelCase = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** `availableDate` → `available_date`. */
export const snakeCase = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
