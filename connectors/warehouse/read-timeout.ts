import type { DataType } from "../../core/column-types.js";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import type { ReaderLogin } from "./postgres/reader.js";
import type { ReadMeasure } from "./read-cap.js";

/** A read-only statement took longer than its time limit and was stopped. */
export class ReadTimeoutError extends SkillsyncError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, source: string) {
    super(
      "READ_TIMEOUT",
      `${source}: stopped after ${timeoutMs} ms (the read-only time limit; --timeout or SKILLSYNC_SQL_TIMEOUT_MS)`,
      ExitCode.failure,
    );
    this.timeoutMs = timeoutMs;
  }
}

/** What the dialect halves of the read-only path get (after the statement was checked). */
export interface DialectReadOptions {
  params: readonly unknown[];
  timeoutMs: number;
  maxRows: number;
  /** Rows past this many (and one more) are not read: the caller cuts the result. */
  cutAt: number | undefined;
  source: string;
  /** Integers past 2^53 as BigInt instead of a rounded number (SQLite: every integer). */
  exactIntegers: boolean;
  /** The answer's bound in bytes (its rows as JSON) and each cell's: see read-cap.ts. */
  maxBytes: number | undefined;
  maxCellBytes: number | undefined;
  /** Told, once the read is done, what a bounded read did (when maxBytes or maxCellBytes is set). */
  onMeasure: ((m: ReadMeasure) => void) | undefined;
}

/** What the dialect halves of a read in batches get (`readOnlyBatches`, after the statement was checked). */
export interface BatchReadDialectOptions {
  params: readonly unknown[];
  /** Time limit for the whole read, ms; undefined: none. */
  timeoutMs: number | undefined;
  /** Rows per batch handed to `onBatch`. */
  batchRows: number;
  source: string;
  exactIntegers: boolean;
  /** Told the result's columns before the first batch (also when there are no rows). */
  onColumns: ((columns: ResultColumn[]) => Promise<void> | void) | undefined;
  /** Takes one batch, each row its values in the columns' order; the next is not handed over before it resolves. */
  onBatch: (rows: unknown[][]) => Promise<void> | void;
}

/**
 * A column of a read's result, typed where the database says: Postgres gives every column's type,
 * SQLite only the declared type of a column read straight from a table (integer, real or text).
 */
export interface ResultColumn {
  name: string;
  type: DataType | undefined;
}

/**
 * Postgres: the login to read as when `--read-db` named none (store/reader-login.ts resolves it).
 * SQLite reads open the file read-only instead and ask no login.
 */
export type ReaderLoginSource = (() => Promise<ReaderLogin>) | undefined;

/**
 * Where a warehouse runs a statement the read-only path has checked (open.ts gives each warehouse
 * its own): a reader process of the SQLite file, or the Postgres reader login's pool.
 */
export interface ReadPath {
  /** One read, its rows bounded (`readOnly`). */
  rows(text: string, o: DialectReadOptions, login: ReaderLoginSource): Promise<Record<string, unknown>[]>;
  /** One read a batch at a time (`readOnlyBatches`); how many rows were read. */
  batches(text: string, o: BatchReadDialectOptions, login: ReaderLoginSource): Promise<number>;
}
