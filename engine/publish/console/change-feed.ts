import { type Expression, type SqlBool, sql } from "kysely";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { readCompiled } from "../../../store/reader-db.js";
import { changesView } from "../../load/history-views.js";
import { textOf } from "../../load/watches/versions.js";
import { type HistorySource, historySource } from "../history-source.js";
import { userTables } from "../read-table.js";

/** One change, newest first in a feed: its key (as watches write it), old → new as text, its load. */
export interface FeedChange {
  key: string;
  keyValues: Record<string, string | null>;
  change: "added" | "changed";
  /** The changed column or child table; null when `added` (the key's first version). */
  column: string | null;
  from: string | null;
  to: string | null;
  loadId: number;
  at: string | null;
}

export interface ChangeFeedPage {
  table: string;
  kind: HistorySource["kind"];
  keyColumns: string[];
  changes: FeedChange[];
  /** Pass as `before` for the next (older) page; null on the last. */
  next: string | null;
}

export interface HistoryTableSummary {
  table: string;
  kind: HistorySource["kind"];
  keyColumns: string[];
  /**
   * Keys changed by the table's newest 10 loads; null for a change view, whose rows are worked out
   * over its whole source at every read (seconds at a million rows): not counted for a listing.
   */
  changes: number | null;
  lastChangeAt: string | null;
}

/** Loads `historyTables` counts the changes of. */
const RECENT_LOADS = 10;
/** The most changes one page of the feed holds. */
const MAX_PAGE = 1000;

/**
 * The source's changes as the `_changes` view has them (key columns, change, column_name,
 * old_value, new_value, load_id, changed_at): the view itself for a history table; for a change
 * view, one row per paired value that moved and an `added` row for a key's first load.
 */
function changeRows(w: Warehouse, s: HistorySource) {
  if (s.kind === "history") return w.db.selectFrom(changesView(s.table));
  const db = w.db;
  const at = s.at ? sql.ref(s.at) : sql`null`;
  const pairs = s.columns.map((c) => c.name);
  const first = sql<boolean>`${sql.ref(s.firstMark ?? "previous_load_id")} is null`;
  const row = (
    change: string,
    column: Expression<unknown>,
    old: Expression<unknown>,
    now: Expression<unknown>,
  ) =>
    [
      ...s.keyColumns,
      sql<string>`cast(${change} as text)`.as("change"),
      sql<string>`cast(${column} as text)`.as("column_name"),
      sql<string>`cast(${old} as text)`.as("old_value"),
      sql<string>`cast(${now} as text)`.as("new_value"),
      "load_id",
      sql`${at}`.as("changed_at"),
    ] as const;
  let q = db
    .selectFrom(s.table)
    .select(row("added", sql`null`, sql`null`, sql`null`))
    .where(first);
  for (const p of pairs) {
    const moved = db
      .selectFrom(s.table)
      .select(row("changed", sql`${p}`, sql.ref(`previous_${p}`), sql.ref(p)))
      .where((eb) => eb.not(first))
      .where((eb) => eb(p, "is distinct from", eb.ref(`previous_${p}`)));
    q = q.unionAll(moved);
  }
  return db.selectFrom(q.as("c"));
}

/**
 * The tables that keep history (and the change views), each with its key, how many changes its
 * newest 10 loads made and when the latest was.
 *
 * @example await historyTables(w) // [{ table: "patent_legal_status", kind: "history", changes: 42, … }]
 */
export async function historyTables(w: Warehouse): Promise<HistoryTableSummary[]> {
  const tables = await userTables(w);
  const out: HistoryTableSummary[] = [];
  for (const table of tables) {
    const s = await historySource(w, table, tables);
    if (!s) continue;
    const recent = s.kind === "view" ? { changes: null, lastChangeAt: null } : await recentChanges(w, s);
    out.push({ table, kind: s.kind, keyColumns: s.keyColumns, ...recent });
  }
  return out;
}

/**
 * The versions (keys added or changed) the newest loads wrote, and when the latest began: read
 * from the table's own rows, not its `_changes` view, which would pair every version with the one
 * before (seconds on a million rows). Each version is at least one change of the feed.
 */
async function recentChanges(w: Warehouse, s: HistorySource) {
  const source = `console changes of ${s.table}`;
  const loads = await readCompiled(
    w,
    w.db
      .selectFrom(s.table)
      .select("load_id")
      .distinct()
      .where("load_id", "is not", null)
      .orderBy("load_id", "desc")
      .limit(RECENT_LOADS)
      .compile(),
    source,
  );
  const oldest = loads.at(-1)?.["load_id"];
  if (oldest === undefined) return { changes: 0, lastChangeAt: null };
  const versions = (from: number) => w.db.selectFrom(s.table).where("load_id", ">=", from);
  // Counted apart from the newest time: a count alone is read from the load's index, no row visited.
  const [n] = await readCompiled(
    w,
    versions(Number(oldest))
      .select((eb) => eb.fn.countAll().as("n"))
      .compile(),
    source,
  );
  const at = s.at ? sql.ref(s.at) : sql`null`;
  const newest = Number(loads[0]!["load_id"]);
  const [last] = await readCompiled(
    w,
    versions(newest)
      .select((eb) => eb.fn.max(at).as("last"))
      .compile(),
    source,
  );
  return { changes: Number(n?.["n"] ?? 0), lastChangeAt: isoOf(last?.["last"]) };
}

/** A change view's row is a change when it is the key's first, or one of its pairs moved. */
function movedOrFirst(s: HistorySource): Expression<SqlBool>[] {
  return [
    sql<SqlBool>`${sql.ref(s.firstMark ?? "previous_load_id")} is null`,
    ...s.columns.map(
      (c) => sql<SqlBool>`${sql.ref(c.name)} is distinct from ${sql.ref(`previous_${c.name}`)}`,
    ),
  ];
}

/**
 * A page of a table's changes, newest first: the changes of `limit` versions (a key added or
 * changed by a load; several changes when several columns moved), by load then key, and `next` to
 * pass as `before` for the older ones. The versions are picked from the table's own rows (the
 * load's index, where there is one), then only their changes read from the `_changes` view.
 * Refused (a typed error) for a table that keeps no history, whatever its name holds.
 *
 * @example const p = await readChangeFeed(w, "patent_legal_status", { limit: 100 });
 * await readChangeFeed(w, "patent_legal_status", { limit: 100, before: p.next ?? undefined })
 */
export async function readChangeFeed(
  w: Warehouse,
  table: string,
  o: { limit: number; before?: string | undefined },
  /** The table's source when the caller has it already (`historySource`): the catalog is not read again. */
  known?: HistorySource,
): Promise<ChangeFeedPage> {
  const s = known?.table === table ? known : await historySource(w, table);
  if (!s) throw notHistory(table);
  const limit = Math.max(1, Math.min(MAX_PAGE, Math.floor(o.limit)));
  const cursor = o.before === undefined ? undefined : cursorOf(o.before);
  const versions = await pageVersions(w, s, limit, cursor);
  const page = versions.slice(0, limit);
  const changes = await changesOfVersions(w, s, page);
  const next = versions.length > limit ? nextCursor(page, cursor) : null;
  return { table, kind: s.kind, keyColumns: s.keyColumns, changes, next };
}

/** A version: its key as text (as the feed writes it), as the database gave it (to bind back), and its load. */
type Version = { key: string[]; raw: unknown[]; load: number };

/** The page's versions (and one more, to tell whether another page follows): by load descending, then key. */
async function pageVersions(
  w: Warehouse,
  s: HistorySource,
  limit: number,
  cursor: { load: number; skip: number } | undefined,
): Promise<Version[]> {
  let q = w.db
    .selectFrom(s.table)
    .select([...s.keyColumns, "load_id"])
    .where("load_id", "is not", null);
  if (cursor) q = q.where("load_id", "<=", cursor.load);
  if (s.kind === "view") q = q.where((eb) => eb.or(movedOrFirst(s)));
  q = q.orderBy("load_id", "desc");
  for (const k of s.keyColumns) q = q.orderBy(k);
  const rows = await readCompiled(
    w,
    q
      .limit(limit + 1)
      .offset(cursor?.skip ?? 0)
      .compile(),
    `console changes of ${s.table}`,
  );
  return rows.map((r) => ({
    key: s.keyColumns.map((k) => textOf(r[k]) ?? ""),
    raw: s.keyColumns.map((k) => r[k]),
    load: Number(r["load_id"]),
  }));
}

/** The changes of these versions, in their order; within one, newest first, then by column. */
async function changesOfVersions(
  w: Warehouse,
  s: HistorySource,
  page: readonly Version[],
): Promise<FeedChange[]> {
  if (!page.length) return [];
  const loads = [...new Set(page.map((v) => v.load))];
  const q = changeRows(w, s)
    .selectAll()
    .where("load_id", "in", loads)
    .where((eb) => eb.or(page.map((v) => eb.and(s.keyColumns.map((k, i) => eb(k, "=", v.raw[i]))))))
    .orderBy("changed_at", "desc")
    .orderBy("column_name");
  const found = (await readCompiled(w, q.compile(), `console changes of ${s.table}`)).map((r) =>
    feedChange(r, s.keyColumns),
  );
  const at = new Map(page.map((v, i) => [`${v.load} ${keyText(v.key)}`, i]));
  const place = (c: FeedChange) => at.get(`${c.loadId} ${c.key}`) ?? -1;
  return found.filter((c) => place(c) >= 0).sort((a, b) => place(a) - place(b));
}

function notHistory(table: string): ValidationError {
  return new ValidationError("table", [
    {
      path: ["table"],
      message: `"${table.slice(0, 100)}" is neither a table that keeps history (records.mode: history) nor a change view`,
    },
  ]);
}

function feedChange(r: Record<string, unknown>, key: readonly string[]): FeedChange {
  const values = key.map((k) => textOf(r[k]));
  return {
    key: keyText(values),
    keyValues: Object.fromEntries(key.map((k, i) => [k, values[i] ?? null])),
    change: r["change"] === "added" ? "added" : "changed",
    column: textOf(r["column_name"]),
    from: textOf(r["old_value"]),
    to: textOf(r["new_value"]),
    loadId: Number(r["load_id"]),
    at: isoOf(r["changed_at"]),
  };
}

/**
 * Where the next page starts: at or below this load, past its versions already shown. A load's
 * versions never change once it has ended, so the count of those shown stays true between pages.
 */
function nextCursor(page: readonly Version[], cursor: { load: number; skip: number } | undefined): string {
  const load = page.at(-1)!.load;
  const shown = page.filter((v) => v.load === load).length;
  return `${load}-${(cursor?.load === load ? cursor.skip : 0) + shown}`;
}

function cursorOf(before: string): { load: number; skip: number } {
  const m = /^(\d{1,15})-(\d{1,9})$/.exec(before);
  if (!m)
    throw new ValidationError("before", [
      { path: ["before"], message: "is not a page of changes (use the `next` of the page before)" },
    ]);
  return { load: Number(m[1]), skip: Number(m[2]) };
}

/** A key as watches and alerts write it: its one value as text, or its values as a JSON array of text. */
export function keyText(values: readonly (string | null)[]): string {
  return values.length === 1 ? (values[0] ?? "") : JSON.stringify(values);
}

/** A key's values from `keyText`'s form, or undefined when the text cannot be a key of `count` columns. */
export function keyValuesOf(text: string, count: number): string[] | undefined {
  if (count === 1) return [text];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length === count && v.every((x) => typeof x === "string") ? v : undefined;
  } catch {
    return undefined;
  }
}

/** An instant as ISO text, whichever form the dialect gave it in (a Date, or SQLite's text). */
export function isoOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const ms = v instanceof Date ? v.getTime() : Date.parse(String(v));
  return Number.isNaN(ms) ? String(v) : new Date(ms).toISOString();
}
