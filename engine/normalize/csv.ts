import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { snakeCase } from "./convert.js";

/** Column names the toolkit adds to every report table; a CSV header of the same name gets `csv_`. */
export const REPORT_META_COLUMNS = [
  "report_id",
  "report_part",
  "report_row",
  "run_id",
  "loaded_at",
  "load_id",
] as const;

const CHUNK_CHARS = 64 * 1024;
// Letters NFKD does not take apart.
const FOLD: Record<string, string> = { ß: "ss", æ: "ae", ø: "o", œ: "oe", ł: "l", đ: "d" };

/**
 * A CSV header → snake_case column names: accents folded (`Größe` → `grosse`), `%` read as `pct`, a leading digit
 * prefixed, empty names numbered, duplicates suffixed `_2`, `_3`, names the toolkit uses prefixed.
 *
 * @example headerColumns(["Date", "Impression Share %", "Clicks", "Clicks"]) // ["date", "impression_share_pct", "clicks", "clicks_2"]
 */
export function headerColumns(header: string[], reserved: readonly string[] = REPORT_META_COLUMNS): string[] {
  const seen = new Map<string, number>();
  return header.map((raw, i) => {
    const folded = raw
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .replace(/[ßæøœłđ]/gi, (c) => FOLD[c.toLowerCase()] ?? c)
      .replace(/%/g, " pct ")
      .replace(/#/g, " number ");
    let name = snakeCase(folded).slice(0, 58) || `column_${i + 1}`;
    if (/^[0-9]/.test(name)) name = `c_${name}`;
    if (reserved.includes(name) || name.startsWith("skillsync_")) name = `csv_${name}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}

/** One CSV record: the header's column names → cell text (an empty cell is null). */
export type CsvRecord = Record<string, string | null>;

export interface CsvBatch {
  /** Raw header cells, and their column names. */
  header: string[];
  columns: string[];
  /** Records in file order, and each one's data row number (1-based, header not counted). */
  rows: CsvRecord[];
  rowNumbers: number[];
  firstRow: number;
  /** Rows whose field count differs from the header's, with their 1-based row number. */
  malformed: { row: number; reason: string; cells: string[] }[];
}

/** The text in slices that never split a surrogate pair (an emoji cut in two would become U+FFFD twice). */
function chunks(text: string): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < text.length; ) {
        let end = Math.min(text.length, i + CHUNK_CHARS);
        const last = text.charCodeAt(end - 1);
        if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
        yield text.slice(i, end);
        i = end;
      }
    })(),
    { objectMode: false },
  );
}

/**
 * Streams a CSV text (RFC 4180: quoted commas, doubled quotes, line breaks inside quotes; a BOM;
 * CRLF or LF; empty lines skipped) as batches of records, so a part of a million rows never
 * exists as one array. The first non-empty line is the header.
 *
 * @example
 * for await (const b of readCsv('"Date","Clicks"\r\n2025-03-01,4\r\n', 1000)) b.rows; // [{ date: "2025-03-01", clicks: "4" }]
 */
export async function* readCsv(
  content: string | Readable,
  batchSize = 1000,
  reserved: readonly string[] = REPORT_META_COLUMNS,
): AsyncGenerator<CsvBatch> {
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    relax_column_count: true,
    // Parts are not always consistent: CRLF and LF lines may mix within one.
    record_delimiter: ["\r\n", "\n", "\r"],
  });
  const source = typeof content === "string" ? chunks(content) : content;
  source.on("error", (err) => parser.destroy(err));
  source.pipe(parser);
  let header: string[] | undefined;
  let columns: string[] = [];
  let batch: CsvBatch | undefined;
  let row = 0;
  const fresh = (): CsvBatch => ({
    header: header!,
    columns,
    rows: [],
    rowNumbers: [],
    firstRow: row + 1,
    malformed: [],
  });
  for await (const cells of parser as AsyncIterable<string[]>) {
    if (!header) {
      header = cells.map((c) => c.trim());
      columns = headerColumns(header, reserved);
      batch = fresh();
      continue;
    }
    row++;
    const b = batch!;
    if (cells.length !== columns.length) {
      b.malformed.push({
        row,
        reason: `row ${row} has ${cells.length} fields, the header ${columns.length}`,
        cells,
      });
    } else {
      const rec: CsvRecord = {};
      for (let i = 0; i < columns.length; i++) rec[columns[i]!] = cells[i] === "" ? null : cells[i]!;
      b.rows.push(rec);
      b.rowNumbers.push(row);
    }
    if (b.rows.length + b.malformed.length >= batchSize) {
      yield b;
      batch = fresh();
    }
  }
  if (batch && (batch.rows.length > 0 || batch.malformed.length > 0 || batch.firstRow === 1)) yield batch;
}
