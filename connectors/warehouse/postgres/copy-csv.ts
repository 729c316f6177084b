import type { ColumnDef, ColumnType } from "../../../schema/table.js";

type Row = Record<string, unknown>;

/**
 * Postgres `COPY … (format csv)` text for typed rows. In CSV format an unquoted empty field is
 * NULL and a quoted one (`""`) the empty string, so every text-like value is quoted: that keeps
 * commas, quotes, newlines, backslashes and a lone `\.` (the end-of-data marker) as they are.
 * Numbers, booleans and dates are plain ASCII and go unquoted.
 */

const quote = (s: string): string => (s.includes('"') ? `"${s.replaceAll('"', '""')}"` : `"${s}"`);

type Encode = (v: unknown) => string;

const asText = (v: unknown): string =>
  typeof v === "string"
    ? v
    : v instanceof Date
      ? v.toISOString()
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

/**
 * The text Postgres's input function reads for a non-null value of each column type. COPY and
 * the bound parameters of the small-batch INSERT both send exactly this (pg's own conversion
 * would differ: Dates in local time, arrays as Postgres arrays), so both paths store the same.
 */
export const PG_TEXT: Readonly<Record<ColumnType, Encode>> = {
  text: asText,
  integer: (v) => String(v),
  number: (v) => String(v),
  // numeric reads a JS number's shortest text exactly (19.99 stays 19.99, 1e-7 too).
  decimal: (v) => String(v),
  boolean: (v) => (v === true || v === 1 || v === "1" || v === "true" || v === "t" ? "t" : "f"),
  date: asText,
  timestamp: asText,
  // jsonb reads JSON text; a JSON string value is JSON text too ("\"a\""), never raw text.
  json: (v) => JSON.stringify(v),
};

const quoted =
  (encode: Encode): Encode =>
  (v) =>
    quote(encode(v));

const ENCODERS: Record<ColumnType, Encode> = {
  text: quoted(PG_TEXT.text),
  integer: PG_TEXT.integer,
  number: PG_TEXT.number,
  decimal: PG_TEXT.decimal,
  boolean: PG_TEXT.boolean,
  date: quoted(PG_TEXT.date),
  timestamp: quoted(PG_TEXT.timestamp),
  json: quoted(PG_TEXT.json),
};

/** Encodes rows for COPY, one line each; a leading column (the staging sequence) is optional. */
export interface CopyEncoder {
  /** CSV lines for rows[from..to), `seq0 + i` in the first column when the encoder has one. */
  encode(rows: readonly Row[], from: number, to: number, seq0?: number): string;
}

/**
 * Compiles the encoder of one table shape once; per row only the column encoders run.
 *
 * @example
 * copyEncoder([{ name: "a", type: "text" }], false).encode([{ a: 'x,"y"' }], 0, 1) // '"x,""y"""\n'
 */
export function copyEncoder(columns: readonly ColumnDef[], withSeq: boolean): CopyEncoder {
  const names = columns.map((c) => c.name);
  const encoders = columns.map((c) => ENCODERS[c.type]);
  const n = names.length;
  return {
    encode(rows, from, to, seq0 = 0) {
      let out = "";
      for (let i = from; i < to; i++) {
        const r = rows[i]!;
        let line = withSeq ? `${seq0 + i},` : "";
        for (let j = 0; j < n; j++) {
          const v = r[names[j]!];
          if (j > 0) line += ",";
          if (v !== null && v !== undefined) line += encoders[j]!(v);
        }
        out += `${line}\n`;
      }
      return out;
    },
  };
}
