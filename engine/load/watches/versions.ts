import type { Kysely } from "kysely";
import { adapterOf } from "../../../connectors/warehouse/adapter.js";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import type { ColumnType, TableDef } from "../../../schema/table.js";
import type { CompiledMapping } from "../../normalize/mapping.js";
import type { Row } from "../../normalize/row.js";
import { contentColumns, groupRows, keyValues, type NewVersion } from "../history.js";
import type { KeyChange, Watcher } from "./match.js";

type Versioned = Pick<CompiledMapping, "table" | "children" | "volatile">;

/** A value as text, as the `_changes` view shows it (whatever the dialect gave back). */
export function textOf(v: unknown, type?: ColumnType): string | null {
  if (v === null || v === undefined) return null;
  if (type === "boolean")
    return v === true || v === 1 || v === "1" || v === "t" || v === "true" ? "true" : "false";
  if (v instanceof Date) return type === "date" ? v.toISOString().slice(0, 10) : v.toISOString();
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A key as watches name it: its one value as text, or its values as a JSON array of text. */
export function keyTextOf(def: TableDef): (row: Row) => string {
  const types = def.key.map((k) => def.columns.find((c) => c.name === k)?.type);
  if (def.key.length === 1) return (row) => textOf(row[def.key[0]!], types[0]) ?? "";
  return (row) => JSON.stringify(def.key.map((k, i) => textOf(row[k], types[i])));
}

/**
 * The parent's columns these watches compare (its content columns, or those they name): what the
 * history writer keeps of the versions it closes (`writeHistory`'s `compare`).
 */
export function comparedColumns(m: Versioned, watches: readonly Watcher[]): string[] {
  const content = contentColumns(m.table, m.volatile).filter((c) => !m.table.key.includes(c));
  if (watches.some((w) => w.spec.columns === null)) return content;
  const named = new Set(watches.flatMap((w) => w.spec.columns ?? []));
  return content.filter((c) => named.has(c));
}

/**
 * What the new versions changed in these columns of the parent table, per key: its first version
 * (`added`), or each changed column. Old and new values are compared as the database gives them:
 * the old from the writer's own read of the versions it closed (`before`), the new as bound where
 * the columns' types read back so (`readsBackAsBound`), else read back inside the load's transaction.
 */
export async function parentChanges(
  db: Kysely<AnyDB>,
  m: Versioned,
  versions: readonly NewVersion[],
  columns: readonly string[],
): Promise<Map<string, KeyChange[]>> {
  const keyText = keyTextOf(m.table);
  const out = new Map<string, KeyChange[]>();
  const closing = versions.filter((v) => v.previous);
  if (closing.some((v) => !v.before))
    throw new Error(`the history writer of ${m.table.name} did not keep the versions it closed (compare)`);
  const adapter = adapterOf(db);
  const typed = columns.map((name) => ({
    name,
    type: m.table.columns.find((x) => x.name === name)?.type ?? "text",
  }));
  const asRead =
    typed.every((c) => adapter.readsBackAsBound(c.type)) || !closing.length
      ? undefined
      : await readBack(db, m.table, m.table, closing, "new");
  const diff = columnDiff(db, typed, asRead === undefined);
  for (const v of versions) {
    const key = keyText(v.parent);
    if (!v.before) {
      out.set(key, [{ key, change: "added", column: null, old: null, new: null }]);
      continue;
    }
    const now = asRead ? asRead(key, v.from).now[0] : v.parent;
    if (now) out.set(key, diff(key, v.before, now));
  }
  return out;
}

/** Per key, what the new versions changed in these child tables: row counts and rows that are new. */
export async function childChangesOf(
  db: Kysely<AnyDB>,
  m: Versioned,
  children: readonly TableDef[],
  versions: readonly NewVersion[],
): Promise<Map<string, KeyChange[]>> {
  const keyText = keyTextOf(m.table);
  const out = new Map<string, KeyChange[]>();
  const previous = versions.filter((v) => v.previous);
  if (!previous.length) return out;
  const reads = await Promise.all(children.map((c) => readBack(db, c, m.table, previous, "both")));
  for (const v of previous) {
    const key = keyText(v.parent);
    const changes = children.flatMap((child, i) => {
      const { now, before } = reads[i]!(key, v.from);
      return childChanges(child, m, key, before, now);
    });
    if (changes.length) out.set(key, changes);
  }
  return out;
}

/** A key's rows that begin at a version's start (the new ones) and that end there (those it closed). */
type Around = (key: string, from: string) => { now: Row[]; before: Row[] };

/**
 * The rows of `def` for these versions' keys, read back: per key and version start, the rows that
 * begin there (new) and (`both`) those that end there (closed). Grouped by key once: looking each
 * version's rows up in the whole list was quadratic (issue 46's bench).
 */
async function readBack(
  db: Kysely<AnyDB>,
  def: TableDef,
  parent: TableDef,
  versions: readonly NewVersion[],
  which: "new" | "both",
): Promise<Around> {
  const froms = [...new Set(versions.map((v) => v.from))];
  const rows = groupRows(await rowsAround(db, { def, parent, which }, versions, froms), keyTextOf(parent));
  const pick = (key: string, at: number, col: "valid_from" | "valid_to") =>
    (rows.get(key) ?? []).filter((r) => timeOf(r[col]) === at);
  return (key, from) => {
    const at = Date.parse(from);
    return { now: pick(key, at, "valid_from"), before: pick(key, at, "valid_to") };
  };
}

/**
 * The parent's changed columns between the closed version (as read) and the new one — as read, or
 * (`bound`) the row written, taken as it was bound: how it reads back (`readsBackAsBound`).
 * Typed once per load transaction, not per key; equal values need no text.
 */
function columnDiff(
  db: Kysely<AnyDB>,
  cols: readonly { name: string; type: ColumnType }[],
  bound: boolean,
): (key: string, before: Row, now: Row) => KeyChange[] {
  const adapter = adapterOf(db);
  return (key, before, now) => {
    const out: KeyChange[] = [];
    for (const { name, type } of cols) {
      const value = bound ? adapter.bind(now[name], type) : now[name];
      if (value === before[name] && (value === null || typeof value !== "object")) continue;
      const old = textOf(before[name], type);
      const text = textOf(value, type);
      if (old !== text) out.push({ key, change: "changed", column: name, old, new: text });
    }
    return out;
  };
}

/**
 * A child table's change: its row count (when its rows differ) and each row that is new, rows
 * compared by content without their key (the parent's and their position): a member inserted
 * before others is one new row, not every row after it.
 */
function childChanges(child: TableDef, m: Versioned, key: string, before: Row[], now: Row[]): KeyChange[] {
  const cols = contentColumns(child, m.volatile).filter((c) => !child.key.includes(c));
  const types = cols.map((c) => child.columns.find((x) => x.name === c)?.type);
  const tuple = (r: Row) => JSON.stringify(cols.map((c, i) => textOf(r[c], types[i])));
  const had = new Set(before.map(tuple));
  const has = new Set(now.map(tuple));
  if (had.size === has.size && [...has].every((t) => had.has(t))) return [];
  const out: KeyChange[] = [
    { key, change: "changed", column: child.name, old: String(before.length), new: String(now.length) },
  ];
  for (const r of now) {
    if (had.has(tuple(r))) continue;
    const summary = cols.map((c, i) => textOf(r[c], types[i])).filter((x) => x !== null && x !== "");
    out.push({ key, change: "appeared", column: child.name, old: null, new: summary.join(", ") });
  }
  return out;
}

/** Keys per statement reading versions back (well under SQLite's 32,766 bound parameters, even for a key of several columns). */
const KEYS_PER_READ = 1_000;

/** Rows of `def` for these keys that begin (or, `both`, end) at one of these times: the new (and closed) versions. */
async function rowsAround(
  db: Kysely<AnyDB>,
  { def, parent, which }: { def: TableDef; parent: TableDef; which: "new" | "both" },
  versions: readonly NewVersion[],
  froms: readonly string[],
): Promise<Row[]> {
  const adapter = adapterOf(db);
  const times = froms.map((f) => adapter.bind(f, "timestamp"));
  const out: Row[] = [];
  // A load transaction's keys in one or two statements: each statement is a round trip on Postgres.
  for (let i = 0; i < versions.length; i += KEYS_PER_READ) {
    const chunk = versions.slice(i, i + KEYS_PER_READ).map((v) => keyValues(db, parent, v.parent));
    const rows = await db
      .selectFrom(def.name)
      .selectAll()
      .where((eb) =>
        eb.and([
          parent.key.length === 1
            ? eb(
                parent.key[0]!,
                "in",
                chunk.map((kv) => kv[0]![1]),
              )
            : eb.or(chunk.map((kv) => eb.and(kv.map(([k, v]) => eb(k, "=", v))))),
          which === "new"
            ? eb("valid_from", "in", times)
            : eb.or([eb("valid_from", "in", times), eb("valid_to", "in", times)]),
        ]),
      )
      .execute();
    out.push(...(rows as Row[]));
  }
  return out;
}

function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  return Date.parse(String(v));
}
