import { fromZodIssues, ValidationError } from "../core/errors.js";
import { type WatchFile, watchFileSchema } from "../schema/watch.js";
import { UsageError } from "./context.js";

/** `watch add`'s flags, as commander gives them. */
export interface WatchAddFlags {
  table?: string;
  keys?: string;
  keysSql?: string;
  column?: string[];
  to?: string;
  from?: string;
  fellBy?: string;
  roseBy?: string;
  appeared?: boolean;
  notify?: string;
  email?: string[];
  digest?: string;
  cooldown?: string;
}

/** The member of a watch file each flag sets, so a message names the flag the user typed. */
const FLAG_OF: Record<string, string> = {
  table: "--table",
  keys: "--keys / --keys-sql",
  columns: "--column",
  "when.to": "--to",
  "when.from": "--from",
  "when.fell_by": "--fell-by",
  "when.rose_by": "--rose-by",
  "notify.url": "--notify",
  "notify.email": "--email",
  "notify.digest": "--digest",
  "notify.cooldown": "--cooldown",
};

/**
 * The flags as a watch file's members (the one shape `defineWatch` checks): `--keys @FILE` a file
 * of keys, `--keys K1,K2` a list, `--keys-sql` a query. Checked with the file's schema; a
 * problem names its flag (exit 2).
 */
export function watchFileOfFlags(f: WatchAddFlags): WatchFile {
  if (f.keys !== undefined && f.keysSql !== undefined)
    throw new UsageError("give --keys or --keys-sql, not both");
  const keys =
    f.keysSql !== undefined
      ? { sql: f.keysSql }
      : f.keys === undefined
        ? undefined
        : f.keys.startsWith("@")
          ? { file: f.keys.slice(1) }
          : { list: f.keys.split(",").map((k) => k.trim()) };
  const when = {
    to: f.to,
    from: f.from,
    fell_by: f.fellBy,
    rose_by: f.roseBy,
    appeared: f.appeared || undefined,
  };
  const notify = { url: f.notify, email: f.email, digest: f.digest, cooldown: f.cooldown };
  const raw = { table: f.table, keys, columns: f.column, when: defined(when), notify: defined(notify) };
  const parsed = watchFileSchema.safeParse(defined(raw));
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    "watch add",
    fromZodIssues(parsed.error.issues).map((i) => {
      const member = i.path.filter((p) => typeof p === "string").join(".");
      const flag = FLAG_OF[member] ?? FLAG_OF[member.split(".")[0] ?? ""] ?? member;
      return { ...i, path: [flag] };
    }),
  );
}

/** The object without its undefined members (undefined when none is left). */
function defined<T extends Record<string, unknown>>(o: T): Partial<T> | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return Object.keys(out).length ? out : undefined;
}
