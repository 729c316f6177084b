import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { converterOf } from "./cell-converters.js";
import type { FileColumn, FileColumnType, RowFileWriter } from "./row-file-types.js";
import { scratchOf } from "./temp-files.js";

/** How DuckDB reads each column from the scratch file, and what the Parquet column becomes. */
const READ_AS: Record<FileColumnType, string> = {
  integer: "BIGINT",
  number: "DOUBLE",
  decimal: "VARCHAR",
  boolean: "BOOLEAN",
  date: "VARCHAR",
  timestamp: "VARCHAR",
  json: "VARCHAR",
  text: "VARCHAR",
  blob: "VARCHAR",
};
/**
 * Parquet's DECIMAL needs a precision and scale; Postgres's `numeric` has neither. 18 digits, 6
 * after the point: money and rates, and sums up to a trillion. A 64-bit decimal: DECIMAL(38, 10)
 * (128-bit) took 31 s instead of 14 s for a million rows with two price columns.
 */
const DECIMAL = "DECIMAL(18, 6)";

const cellOf = (type: FileColumnType, c: string): string => {
  if (type === "date") return `cast(${c} as DATE)`;
  // Read as the number's text, so the decimal is made from its digits, never through a double.
  if (type === "decimal") return `cast(${c} as ${DECIMAL})`;
  // UTC instants (Parquet's isAdjustedToUTC): pandas reads them as datetime64[ns, UTC].
  if (type === "timestamp") return `cast(${c} as TIMESTAMPTZ)`;
  if (type === "blob") return `from_base64(${c})`;
  return c;
};

/**
 * DuckDB's memory while it writes the Parquet file, and the rows per row group: with one thread
 * and row groups of 20 000 rows the export stays under 300 MB of RSS for a million wide rows
 * (docs/benchmarks.md, figure 7).
 */
const MEMORY_LIMIT = "128MB";
const ROW_GROUP_ROWS = 20_000;
/**
 * The longest row the scratch file may hold (DuckDB's CSV reader refuses longer lines), which is
 * also the size of its read buffer: 8 MB read 1 million rows of 700 bytes in 2.5 s with 1 thread
 * and 150 MB; 32 MB took 7 s and 250 MB, and 2 threads kept more in memory for no time saved.
 */
const MAX_ROW_BYTES = 8 << 20;

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Parquet through DuckDB (`@duckdb/node-api`, whose Parquet writer is built in: no extension is
 * downloaded, and autoloading is off). The rows go, a batch at a time, to a scratch CSV file beside
 * the Parquet file (every text quoted, so an empty text and a null stay apart), which one DuckDB
 * statement then reads with the columns' types and writes as Parquet (zstd), streaming both ways:
 * a million rows never sit in memory, and JavaScript makes no call into DuckDB per value (which
 * took three times as long). The scratch file is removed either way.
 */
export async function createParquetWriter(path: string, columns: FileColumn[]): Promise<RowFileWriter> {
  const scratch = scratchOf(path);
  const out = createWriteStream(scratch, { flags: "w" });
  await once(out, "open");
  // A failed write (a full disk) fails the next write or the finish; after abort it is expected.
  let failed: Error | undefined;
  out.on("error", (err) => {
    failed ??= err;
  });
  const convert = columns.map((c) => converterOf(c.type, c.name));
  const removeScratch = () => rm(scratch, { force: true });
  return {
    async write(rows) {
      let text = "";
      for (const r of rows) {
        let line = "";
        for (let i = 0; i < convert.length; i++) {
          if (i) line += ",";
          line += csvCell(convert[i]!(r[i]));
        }
        text += `${line}\n`;
      }
      await put(out, text, failed);
    },
    async finish() {
      try {
        out.end();
        await once(out, "close");
        if (failed) throw failed;
        await convertToParquet(scratch, path, columns);
      } finally {
        await removeScratch();
      }
    },
    async abort() {
      out.destroy();
      await removeScratch();
      await rm(path, { force: true });
    },
  };
}

async function convertToParquet(csv: string, parquet: string, columns: FileColumn[]): Promise<void> {
  // Loaded here, not with the CLI: every other command starts without DuckDB's native library.
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:", {
    threads: "1",
    memory_limit: MEMORY_LIMIT,
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const connection = await instance.connect();
  try {
    const types = columns.map((c, i) => `${quoteText(`c${i}`)}: ${quoteText(READ_AS[c.type])}`).join(", ");
    const select = columns.map((c, i) => `${cellOf(c.type, `c${i}`)} as ${quoteName(c.name)}`).join(", ");
    const source = columns.length
      ? `read_csv(${quoteText(csv)}, columns = {${types}}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, max_line_size = ${MAX_ROW_BYTES}, buffer_size = ${MAX_ROW_BYTES})`
      : "(select 1 where false)";
    await connection.run(
      `copy (select ${select || "*"} from ${source}) to ${quoteText(parquet)} (format parquet, compression zstd, row_group_size ${ROW_GROUP_ROWS})`,
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function put(out: WriteStream, text: string, failed: Error | undefined): Promise<void> {
  if (failed) throw failed;
  if (!out.write(text)) await once(out, "drain");
}

/** A value in the scratch file: null as nothing, text always quoted, bytes as base64 text. */
function csvCell(v: unknown): string {
  if (v === null) return "";
  if (typeof v === "string") return `"${v.includes('"') ? v.replaceAll('"', '""') : v}"`;
  if (v instanceof Uint8Array) return `"${Buffer.from(v).toString("base64")}"`;
  return String(v);
}
