import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ValidationError } from "./errors.js";

const MiB = 1024 * 1024;

/**
 * The most skillsync reads of a file a user names (docs/commands.md#limits-of-input-files). Reading
 * stops one byte past the limit, so a device (`/dev/zero`), a pipe or a wrong huge file is refused
 * in a moment instead of filling memory.
 */
export const READ_LIMITS = {
  /** A file of values (`--param name=@file`, `input.from.file`) or a `--body-file`. */
  valuesFileBytes: 16 * MiB,
  /** Values one `--param` or one `input.from.file` gives: non-empty lines, or rows of a CSV file. */
  values: 100_000,
  /** A pipeline, schedule or price file: YAML that no pipeline needs more than a fraction of. */
  yamlFileBytes: 1 * MiB,
  /** A `.env` file of settings. */
  settingsFileBytes: 64 * 1024,
  /** A Google service account's key file (about 2.3 KB). */
  keyFileBytes: 64 * 1024,
} as const;

/** Bytes asked of the file at a time: a pipe gives at most 64 KiB a read anyway. */
const CHUNK_BYTES = 256 * 1024;

export interface ReadBound {
  maxBytes: number;
  /** What the file is read for, as the error names it: `--param keyword`, `pipeline file x.yaml`. */
  what: string;
  /** What to do instead, said after the limit. */
  instead: string;
}

/**
 * The bytes of a file, a device or a pipe, refused with a ValidationError (exit 2) naming
 * `what`, the path and the limit when there are more than `maxBytes`. A failure to open or read
 * (ENOENT, EISDIR, EACCES) is thrown as it comes, for the caller to word. A FIFO no process writes
 * to blocks in `open`, as it does for every reader.
 *
 * @example readBoundedBytes("/dev/zero", { maxBytes: 16, what: "--param keyword", instead: "…" }) // throws
 */
export function readBoundedBytes(path: string, bound: ReadBound): Buffer {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    // A regular file says its size: refused without reading a byte.
    if (stat.isFile() && stat.size > bound.maxBytes) throw tooLarge(path, bound, stat.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, bound.maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > bound.maxBytes) throw tooLarge(path, bound);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The text (UTF-8) of a file, a device or a pipe, bounded as `readBoundedBytes`. */
export function readBoundedText(path: string, bound: ReadBound): string {
  return readBoundedBytes(path, bound).toString("utf8");
}

/** A count of values over `READ_LIMITS.values`, refused as a file over its bytes is. */
export function tooManyValues(what: string, from: string, instead: string): ValidationError {
  const limit = READ_LIMITS.values.toLocaleString("en-US");
  return new ValidationError(what, [
    { path: [], message: `${from}: more than ${limit} values, the most skillsync takes: ${instead}` },
  ]);
}

function tooLarge(path: string, bound: ReadBound, size?: number): ValidationError {
  const exact = bound.maxBytes >= 1024 ? ` (${bound.maxBytes} bytes)` : "";
  const limit = `${sizeText(bound.maxBytes)}${exact}`;
  const is = size === undefined ? "is longer than" : `is ${size} bytes, more than`;
  return new ValidationError(bound.what, [
    { path: [], message: `${path} ${is} ${limit}, the most skillsync reads of it: ${bound.instead}` },
  ]);
}

function sizeText(bytes: number): string {
  if (bytes >= MiB) return `${Number((bytes / MiB).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
