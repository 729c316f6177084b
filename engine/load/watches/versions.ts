import type { Kysely } from "kysely";
import { adapterOf } from "../../../connectors/warehouse/adapter.js";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import type { ColumnType, TableDef } from "../../../schema/table.js";
import type { CompiledMapping } from "../../normalize/mapping.js";
import type { Row } from "../../normalize/row.js";
import { contentColumns, groupRows, keyValues, type NewVersion } from "../history.js";
import type { KeyChange } from "./match.js";

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
 * What the new versions changed for these keys, read back inside the load's transaction (so old
 * and new values come from the database alike): per key its first version (`added`), each changed
 * column and child table (row counts), and each child row the previous version did not have.
 */
export async function changesOf(
  db: Kysely<AnyDB>,
  m: Versioned,
  versions: readonly NewVersion[],
): Promise<Map<string, KeyChange[]>> {
  const keyText = keyTextOf(m.table);
  const out = new Map<string, KeyChange[]>();
  if (!versions.length) return out;
  const froms = [...new Set(versions.map((v) => v.from))];
  // Grouped by key once: looking each version's rows up in the whole list was quadratic (issue 46's bench).
  const byKey = (rows: Row[]) => groupRows(rows, keyText);
  const parents = byKey(await rowsAround(db, m.table, m.table, versions, froms));
  const kids = (await Promise.all(m.children.map((c) => rowsAround(db, c, m.table, versions, froms)))).map(
    byKey,
  );
  for (const v of versions) {
    const key = keyText(v.parent);
    const at = Date.parse(v.from);
    const pick = (rows: Map<string, Row[]>, col: "valid_from" | "valid_to") =>
      (rows.get(key) ?? []).filter((r) => timeOf(r[col]) === at);
    const [now] = pick(parents, "valid_from");
    const [before] = pick(parents, "valid_to");
    if (!now) continue;
    if (!v.previous || !before) {
      out.set(key, [{ key, change: "added", column: null, old: null, new: null }]);
      continue;
    }
    const changes = columnChanges(m, key, before, now);
    m.children.forEach((child, i) => {
      changes.push(...childChanges(child, m, key, pick(kids[i]!, "valid_to"), pick(kids[i]!, "valid_from")));
    });
    out.set(key, changes);
  }
  return out;
}

function columnChanges(m: Versioned, key: string, before: Row, now: Row): KeyChange[] {
  const out: KeyChange[] = [];
  for (const c of contentColumns(m.table, m.volatile)) {
    if (m.table.key.includes(c)) continue;
    const type = m.table.columns.find((x) => x.name === c)?.type;
    const old = textOf(before[c], type);
    const now_ = textOf(now[c], type);
    if (old !== now_) out.push({ key, change: "changed", column: c, old, new: now_ });
  }
  return out;
}

/** A child table's change: its row count (when its rows differ) and each row that is new. */
function childChanges(child: TableDef, m: Versioned, key: string, before: Row[], now: Row[]): KeyChange[] {
  const cols = contentColumns(child, m.volatile).filter((c) => !m.table.key.includes(c));
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

/** Rows of `def` for these keys that begin or end at one of these times (the new and closed versions). */
async function rowsAround(
  db: Kysely<AnyDB>,
  def: TableDef,
  parent: TableDef,
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
          eb.or([eb("valid_from", "in", times), eb("valid_to", "in", times)]),
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
