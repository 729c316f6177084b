import { sql } from "kysely";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import type { ColumnType } from "../../../schema/table.js";
import { readCompiled } from "../../../store/reader-db.js";
import { textOf } from "../../load/watches/versions.js";
import { META_COLUMNS, VERSION_COLUMNS } from "../../normalize/mapping.js";
import { type HistorySource, historySource } from "../history-source.js";
import { type ColumnInfo, tableColumns } from "../read-table.js";
import { isoOf, keyText, keyValuesOf } from "./change-feed.js";

/** One key's values over its versions: numbers to draw as lines, text (a status) as steps. */
export interface KeyTimeline {
  table: string;
  /** As watches and the feed write it: the one value, or a JSON array of the values. */
  key: string;
  /** Every version of the key (a change view: every load that saw it), oldest first. */
  points: { loadId: number; at: string; values: Record<string, unknown> }[];
  numeric: string[];
  text: string[];
  /** The dated rows of the child tables of its newest version (a patent's legal events), oldest first. */
  events?: { at: string; code: string; description?: string }[];
}

/** Versions read when `loads` is not given, and at most. */
const DEFAULT_LOADS = 500;
const MAX_LOADS = 5000;
const NUMERIC = new Set<ColumnType | undefined>(["integer", "number", "decimal"]);
const NOT_EVENT = new Set<string>([...META_COLUMNS, ...VERSION_COLUMNS].map((c) => c.name));

/**
 * The versions of one key of a history table or change view (the newest `loads` of them), through
 * the key's own index. Undefined when the table keeps no history, the text cannot be one of its
 * keys, or the key has no row: the names reaching SQL are the catalog's, the key's values bound.
 *
 * @example await readKeyTimeline(w, "patent_legal_status", "US1234567B2")
 * await readKeyTimeline(w, "marketplace_price_history", '["standing desk","B0C1234567"]')
 */
export async function readKeyTimeline(
  w: Warehouse,
  table: string,
  key: string,
  o: { loads?: number; known?: HistorySource | undefined } = {},
): Promise<KeyTimeline | undefined> {
  // The table's source when the caller has it already: the catalog is not read again.
  const s = o.known?.table === table ? o.known : await historySource(w, table);
  const values = s && keyValuesOf(key, s.keyColumns.length);
  if (!s?.at || !values) return undefined;
  const loads = Math.max(1, Math.min(MAX_LOADS, Math.floor(o.loads ?? DEFAULT_LOADS)));
  let q = w.db
    .selectFrom(s.table)
    .select([...s.columns.map((c) => c.name), "load_id", sql.ref(s.at).as("at")]);
  s.keyColumns.forEach((k, i) => {
    q = q.where(k, "=", values[i]!);
  });
  const rows = (
    await readCompiled(
      w,
      q.orderBy(s.at, "desc").orderBy("load_id", "desc").limit(loads).compile(),
      `console timeline of ${table}`,
    )
  ).reverse();
  if (!rows.length) return undefined;
  const numeric = s.columns.filter((c) => isNumeric(c, rows)).map((c) => c.name);
  const points = rows.map((r) => ({
    loadId: Number(r["load_id"]),
    at: isoOf(r["at"]) ?? "",
    values: Object.fromEntries(s.columns.map((c) => [c.name, pointValue(r[c.name], c, numeric)])),
  }));
  const text = s.columns.map((c) => c.name).filter((c) => !numeric.includes(c));
  const events = await eventsOf(w, s, values, rows.at(-1)!["at"]);
  return { table, key: keyText(values), points, numeric, text, ...(events.length ? { events } : {}) };
}

/** A number column, or one whose type the database does not say (a view's computed column) holding only numbers. */
function isNumeric(c: ColumnInfo, rows: readonly Record<string, unknown>[]): boolean {
  if (c.type !== undefined) return NUMERIC.has(c.type);
  return rows.every((r) => r[c.name] === null || r[c.name] === undefined || typeof r[c.name] === "number");
}

/** Numbers as numbers (whatever form the driver gave), the rest as text as the `_changes` view has it. */
function pointValue(v: unknown, c: ColumnInfo, numeric: readonly string[]): unknown {
  if (v === null || v === undefined) return null;
  if (numeric.includes(c.name)) return Number(v);
  return textOf(v, c.type);
}

/**
 * The rows of the child tables with a date (legal events) of the key's newest version read: each
 * version holds its children's whole list, so the newest one's is the key's history of events.
 */
async function eventsOf(
  w: Warehouse,
  s: HistorySource,
  values: readonly string[],
  newest: unknown,
): Promise<NonNullable<KeyTimeline["events"]>> {
  const out: NonNullable<KeyTimeline["events"]> = [];
  for (const child of s.children) {
    const cols = (await tableColumns(w, child)).filter(
      (c) => !NOT_EVENT.has(c.name) && !s.keyColumns.includes(c.name) && c.name !== "position",
    );
    const date = cols.find((c) => c.type === "date" || c.type === "timestamp" || /_date$/.test(c.name));
    const rest = cols.filter((c) => c !== date && c.type !== "json");
    const code = rest.find((c) => /code|status|type/.test(c.name)) ?? rest[0];
    const description = rest.find((c) => c !== code && /desc|text|title|name/.test(c.name));
    if (!date || !code) continue;
    let q = w.db
      .selectFrom(child)
      .select([date.name, code.name, ...(description ? [description.name] : [])])
      .where("valid_from", "=", newest);
    s.keyColumns.forEach((k, i) => {
      q = q.where(k, "=", values[i]!);
    });
    for (const r of await readCompiled(w, q.compile(), `console events of ${child}`)) {
      const at = textOf(r[date.name], date.type);
      if (at === null) continue;
      const text = description ? textOf(r[description.name]) : null;
      out.push({ at, code: textOf(r[code.name]) ?? "", ...(text ? { description: text } : {}) });
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
