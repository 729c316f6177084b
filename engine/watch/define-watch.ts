import type { Warehouse } from "../../connectors/warehouse/open.js";
import { didYouMean, type Issue, ValidationError } from "../../core/errors.js";
import { ENV_REF } from "../../schema/notify.js";
import { durationMs } from "../../schema/pipeline.js";
import { amountOf, WATCH_NAME, WATCH_NAME_RULE, type WatchFile, type WatchSpec } from "../../schema/watch.js";
import { targetHash } from "../../store/outbox.js";
import { insertWatch, type WatchRow } from "../../store/watches.js";
import { resolveKeys } from "./watch-keys.js";
import { type WatchedTable, watchedTable } from "./watch-table.js";

/** Where a watch's settings came from, for messages: `--table`…, `watches/x.yaml`, `POST /watches`. */
export interface WatchSource {
  source: string;
  /** The watch file, so a key file's path is read relative to it. */
  file?: string | undefined;
}

const NUMERIC = new Set(["integer", "number", "decimal"]);

/**
 * Makes a watch: its settings checked against the warehouse (the table keeps history, the columns
 * are its own, a `fell_by`/`rose_by` can apply), its keys resolved, and the watch recorded with
 * them — or a ValidationError (exit 2) naming what and where, with nothing written. Costs no API
 * call. The watch sees changes loaded from now on.
 */
export async function defineWatch(
  w: Warehouse,
  name: string,
  file: WatchFile,
  o: WatchSource,
): Promise<WatchRow> {
  if (!WATCH_NAME.test(name))
    throw new ValidationError(o.source, [
      { path: ["name"], message: `"${name.slice(0, 64)}" ${WATCH_NAME_RULE}` },
    ]);
  const table = await watchedTable(w, file.table);
  if (!("key" in table)) throw new ValidationError(o.source, [table]);
  const issues = [...columnIssues(table, file), ...conditionIssues(table, file)];
  if (issues.length) throw new ValidationError(o.source, issues);
  const keys = await resolveKeys(w, file.keys, o);
  const spec = specOf(file, keys === undefined);
  const made = await insertWatch(w, name, spec, keys ?? []);
  if (made) return made;
  throw new ValidationError(o.source, [
    {
      path: ["name"],
      message: `a watch named "${name}" already exists: remove it first (skillsync watch rm ${name}) or choose another name`,
    },
  ]);
}

function columnIssues(t: WatchedTable, file: WatchFile): Issue[] {
  const known = [...t.columns.keys(), ...t.children];
  return (file.columns ?? []).flatMap((c, i) =>
    known.includes(c)
      ? []
      : [
          {
            path: ["columns", i],
            message: `"${c}" is not a column or child table of ${t.name}${didYouMean(c, known)}; its columns: ${known.join(", ")}`,
          },
        ],
  );
}

/** `fell_by`/`rose_by` need numbers: every watched column numeric, and at least one. */
function conditionIssues(t: WatchedTable, file: WatchFile): Issue[] {
  const when = file.when ?? {};
  const numericBy = (["fell_by", "rose_by"] as const).filter((k) => when[k] !== undefined);
  if (!numericBy.length) return [];
  const watched = file.columns ?? [...t.columns.keys()];
  // A column whose type the database does not tell (a view's, on SQLite) may hold numbers.
  const numeric = watched.filter(
    (c) => t.columns.get(c) === undefined || NUMERIC.has(String(t.columns.get(c))),
  );
  const text = (file.columns ?? []).filter((c) => !numeric.includes(c));
  if (text.length || !numeric.length) {
    const which = text.length
      ? `${text.join(", ")} ${text.length > 1 ? "are" : "is"} not numeric`
      : `${t.name} has no numeric column`;
    return numericBy.map((k) => ({
      path: ["when", k],
      message: `cannot apply: ${which}; --fell-by and --rose-by compare numbers (use --to/--from for text)`,
    }));
  }
  return [];
}

/** The settings as stored: a webhook URL kept only as `env:NAME` or its hash, amounts and durations parsed. */
function specOf(file: WatchFile, allKeys: boolean): WatchSpec {
  const when = file.when ?? {};
  const url = file.notify?.url;
  const ref = url === undefined ? undefined : ENV_REF.exec(url);
  return {
    table: file.table,
    columns: file.columns ?? null,
    when: {
      ...(when.to !== undefined ? { to: when.to } : {}),
      ...(when.from !== undefined ? { from: when.from } : {}),
      ...(when.fell_by !== undefined ? { fellBy: amountOf(when.fell_by) } : {}),
      ...(when.rose_by !== undefined ? { roseBy: amountOf(when.rose_by) } : {}),
      ...(when.appeared ? { appeared: true } : {}),
    },
    notify: {
      url: url === undefined ? null : ref ? `env:${ref[1] ?? ref[2]}` : `hash:${targetHash(url)}`,
      email: file.notify?.email ?? [],
      digest: file.notify?.digest ?? "load",
      cooldownMs: file.notify?.cooldown === undefined ? null : durationMs(file.notify.cooldown) || null,
    },
    allKeys,
  };
}
