import type { ColumnType } from "../../schema/table.js";
import { limitError, SHEETS_LIMITS, TRUNCATION_MARK } from "./limits.js";

/** What a cell is sent as with `valueInputOption: RAW`: text stays text, even when it starts with `=`. */
export type CellValue = string | number | boolean;

export interface EncodeStats {
  truncatedCells: number;
}

function cut(text: string, max: number, stats: EncodeStats): string {
  if (text.length <= max) return text;
  stats.truncatedCells++;
  let end = max - TRUNCATION_MARK.length;
  // Never split a surrogate pair: half an emoji is not a character.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATION_MARK;
}

/**
 * Integers the warehouse read exactly (a BigInt, or a Postgres integer as text): a number when
 * a double holds it, else text, because Sheets keeps numbers as doubles and 2^53 + 1 would
 * arrive as 2^53.
 */
function exactInteger(value: unknown, type: ColumnType | undefined): CellValue | undefined {
  let big: bigint | undefined;
  if (typeof value === "bigint") big = value;
  else if (type === "integer" && typeof value === "string" && /^-?(0|[1-9]\d*)$/.test(value))
    big = BigInt(value);
  if (big === undefined) return undefined;
  const n = Number(big);
  if (!Number.isSafeInteger(n)) return big.toString();
  return type === "boolean" && (n === 0 || n === 1) ? n === 1 : n;
}

/**
 * One warehouse value as a Sheets cell: numbers as numbers, booleans as booleans (SQLite's 0/1
 * too, when the column is known to be boolean), dates and timestamps as ISO text, JSON as text,
 * null as "" (so a replaced cell is emptied, not skipped), text longer than a cell holds cut and marked.
 *
 * @example encodeCell(1, "boolean", stats) // true
 */
export function encodeCell(
  value: unknown,
  type: ColumnType | undefined,
  stats: EncodeStats,
  maxChars: number = SHEETS_LIMITS.charactersPerCell,
): CellValue {
  if (value === null || value === undefined) return "";
  const exact = exactInteger(value, type);
  if (exact !== undefined) return exact;
  if (type === "boolean" && (value === 0 || value === 1 || value === "0" || value === "1"))
    return Number(value) === 1;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "" : value.toISOString();
  if (Buffer.isBuffer(value)) return `[${value.length} bytes of binary data]`;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return cut(text, maxChars, stats);
}

/** A run of consecutive rows sent in one request; `body` is the exact JSON of its values. */
export interface Chunk {
  /** 0-based index of its first row among the rows pushed (the header is row 0 when written). */
  first: number;
  rows: number;
  values: CellValue[][];
  bytes: number;
}

// Room for the range, majorDimension and the JSON around `values` in each request.
const ENVELOPE_BYTES = 512;

/**
 * Splits encoded rows into requests of at most `maxBytes` of JSON each. A single row larger than
 * that cannot be sent and is refused (nothing has been sent yet when this runs).
 *
 * @example chunkRows([["a", 1], ["b", 2]], 2_000_000) // [{ first: 0, rows: 2, … }]
 */
export function chunkRows(rows: CellValue[][], maxBytes: number = SHEETS_LIMITS.requestBytes): Chunk[] {
  const chunks: Chunk[] = [];
  const budget = maxBytes - ENVELOPE_BYTES;
  let current: Chunk | undefined;
  rows.forEach((row, i) => {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (size > budget) {
      throw limitError(
        `row ${i} is ${size} bytes as JSON; one request carries at most ${maxBytes} bytes (cut long text before pushing)`,
      );
    }
    if (!current || current.bytes + size > budget) {
      current = { first: i, rows: 0, values: [], bytes: 2 };
      chunks.push(current);
    }
    current.values.push(row);
    current.rows++;
    current.bytes += size;
  });
  return chunks;
}
