import { createParquetWriter } from "./duckdb-parquet.js";
import type { FileColumn, FileFormat, RowFileWriter } from "./row-file-types.js";
import { createTextWriter } from "./text-files.js";

export type { FileColumn, FileColumnType, FileFormat, RowFileWriter } from "./row-file-types.js";

/**
 * A writer of `format` at `path` (created or replaced), for rows with these columns. The rows are
 * arrays of values in the columns' order, as the warehouse gives them (connectors/warehouse): SQLite's 0/1 booleans, dates and
 * timestamps as ISO text, JSON as text or parsed, integers as numbers or BigInt.
 *
 * @example const out = await openRowFile("parquet", "/tmp/x.parquet", [{ name: "n", type: "integer" }]);
 */
export function openRowFile(format: FileFormat, path: string, columns: FileColumn[]): Promise<RowFileWriter> {
  return format === "parquet" ? createParquetWriter(path, columns) : createTextWriter(format, path, columns);
}
