import type { DataType } from "../../core/column-types.js";

/**
 * The types a row file carries, as `skillsync export` maps them (docs/export.md): integers (64-bit),
 * reals (double), decimals, booleans, dates, timestamps (UTC), JSON (as text), text, bytes.
 */
export type FileColumnType = DataType;

export interface FileColumn {
  name: string;
  type: FileColumnType;
}

export type FileFormat = "parquet" | "csv" | "jsonl";

/** One file of rows being written, a batch at a time. */
export interface RowFileWriter {
  /** Rows as arrays of their values, in the columns' order. */
  write(rows: readonly (readonly unknown[])[]): Promise<void>;
  /** Completes the file at its path. */
  finish(): Promise<void>;
  /** Gives up: whatever was written (and any scratch file) is removed. */
  abort(): Promise<void>;
}
