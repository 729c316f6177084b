import { dirname, resolve } from "node:path";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { READ_LIMITS, readBoundedText, tooManyValues } from "../../core/bounded-read.js";
import { type Issue, ValidationError } from "../../core/errors.js";
import type { WatchFile } from "../../schema/watch.js";
import { readWarehouse } from "../define/warehouse-reads.js";

const KEY_MAX = 1000;

/**
 * The keys a watch names, as text: a list, a file of one key per line (blank lines and `#`
 * comments skipped; relative to the watch file), or the first column of a query run once, now,
 * through the warehouse's read-only path. Absent: every key (undefined).
 */
export async function resolveKeys(
  w: Warehouse,
  keys: WatchFile["keys"],
  o: { source: string; file?: string | undefined },
): Promise<string[] | undefined> {
  if (!keys) return undefined;
  let values: string[];
  let where: (string | number)[];
  if ("list" in keys) {
    values = keys.list;
    where = ["keys", "list"];
  } else if ("file" in keys) {
    values = keysFromFile(keys.file, o);
    where = ["keys", "file"];
  } else {
    values = await keysFromSql(w, keys.sql, o.source);
    where = ["keys", "sql"];
  }
  const issues = malformed(values, where);
  if (issues.length) throw new ValidationError(o.source, issues);
  if (!values.length) throw new ValidationError(o.source, [{ path: where, message: "names no key" }]);
  return [...new Set(values.map((v) => v.trim()))];
}

function keysFromFile(path: string, o: { source: string; file?: string | undefined }): string[] {
  const full = o.file ? resolve(dirname(o.file), path) : resolve(path);
  let text: string;
  try {
    text = readBoundedText(full, {
      maxBytes: READ_LIMITS.valuesFileBytes,
      what: `${o.source} keys`,
      instead: "name the keys with a query (--keys-sql) instead",
    });
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ValidationError(o.source, [
      { path: ["keys", "file"], message: `${full} cannot be read (${code})` },
    ]);
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  if (lines.length > READ_LIMITS.values) throw tooManyValues(o.source, full, "split the watch in two");
  return lines;
}

async function keysFromSql(w: Warehouse, text: string, source: string): Promise<string[]> {
  const rows = await readWarehouse(w, text, { source: `${source} keys.sql`, maxRows: READ_LIMITS.values });
  return rows.map((r) => Object.values(r)[0]).map((v) => (v === null || v === undefined ? "" : String(v)));
}

/** Keys that cannot name anything: empty, too long, or holding a line break or a NUL. */
function malformed(values: readonly string[], where: (string | number)[]): Issue[] {
  const issues: Issue[] = [];
  values.forEach((v, i) => {
    const why =
      v.trim() === ""
        ? "is empty"
        : v.length > KEY_MAX
          ? `is longer than ${KEY_MAX} characters`
          : /[\r\n\0]/.test(v)
            ? "holds a line break or a NUL"
            : undefined;
    if (why && issues.length < 8)
      issues.push({ path: [...where, i], message: `key ${JSON.stringify(v.slice(0, 40))} ${why}` });
  });
  return issues;
}
