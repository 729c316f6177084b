import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { adapterOf } from "../../connectors/warehouse/adapter.js";
import { keyOf, lastPerKey, type WarehouseTx } from "../../connectors/warehouse/bulk.js";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import type { TableDef } from "../../schema/table.js";
import {
  CHILDREN_HASH,
  type CompiledMapping,
  META_COLUMNS,
  VERSION_COLUMNS,
  VERSION_HASH,
} from "../normalize/mapping.js";
import type { Row } from "../normalize/row.js";

/** What writing one group of answers into a `history` table did. */
export interface HistoryCounts {
  /** New versions (a key seen for the first time, or whose content changed). */
  versions: number;
  /** Keys whose answer matched their current version: nothing written. */
  unchanged: number;
  /** Current versions closed by a new one. */
  closed: number;
  /** Rows inserted: the new versions and their children. */
  rows: number;
  /** The new versions: each key's new parent row, when it began, and whether it closed an earlier one. */
  written: NewVersion[];
}

/** A version written by a load: what watches compare with the version it closed (engine/load/watches). */
export interface NewVersion {
  parent: Row;
  from: string;
  previous: boolean;
  /** The version it closed as the database gave it (its key and the columns to `compare`), when asked for. */
  before?: Row;
}

type Versioned = Pick<CompiledMapping, "table" | "children" | "volatile">;

/** Columns of a versioned table that the toolkit writes, not the data: never a version's content. */
export const NOT_CONTENT: ReadonlySet<string> = new Set<string>([
  ...META_COLUMNS.map((c) => c.name),
  ...VERSION_COLUMNS.map((c) => c.name),
  VERSION_HASH,
  CHILDREN_HASH,
]);

/**
 * Writes parents (and their children) as versions: a key's row becomes a new version only when
 * its content or its children's differ from its current version; the current one is then closed
 * at the new one's `valid_from` (the answer's arrival), so a key's versions never overlap and leave
 * no gaps. An answer older than a key's current version is not written (a newer one was already
 * seen). Runs alone among the loads of this table (an advisory lock in Postgres; SQLite has one
 * writer), and the table's partial unique index keeps one current version per key whatever happens.
 * With `compare` (the table has watches: the columns they look at) those columns of the current
 * versions are read too, and each new version carries the one it closed: the watches compare them
 * without reading them again.
 */
export async function writeHistory(
  tx: WarehouseTx,
  m: Versioned,
  rows: Map<string, Row[]>,
  o: { compare?: readonly string[] | undefined } = {},
): Promise<HistoryCounts> {
  const counts: HistoryCounts = { versions: 0, unchanged: 0, closed: 0, rows: 0, written: [] };
  const key = m.table.key;
  const parents = lastPerKey(rows.get(m.table.name) ?? [], key) as Row[];
  if (!parents.length) return counts;
  await adapterOf(tx.db).serialize(tx.db, `history:${m.table.name}`);
  const of = keyOf(key);
  const kids = m.children.map((c) => groupRows(rows.get(c.name) ?? [], of));
  const current = await currentVersions(tx.db, m.table, parents, o.compare);
  const newParents: Row[] = [];
  const newKids: Row[][] = m.children.map(() => []);
  for (const parent of parents) {
    const k = of(parent);
    const own = kids.map((byKey) => byKey.get(k) ?? []);
    const childrenHash = fingerprint(
      own.map((list, i) => list.map((r) => content(r, m.children[i]!, m.volatile))),
    );
    const hash = fingerprint([content(parent, m.table, m.volatile), childrenHash]);
    // Looked up as the database gives the key back (SQLite reads a boolean as 0/1).
    const now = current.get(of(Object.fromEntries(keyValues(tx.db, m.table, parent))));
    const from = String(parent["loaded_at"]);
    if (now && (now.hash === hash || now.from >= Date.parse(from))) {
      counts.unchanged++;
      continue;
    }
    if (now) {
      await closeVersion(tx.db, m, parent, from);
      counts.closed++;
    }
    counts.versions++;
    counts.written.push({
      parent,
      from,
      previous: now !== undefined,
      ...(now?.row ? { before: now.row } : {}),
    });
    newParents.push({
      ...parent,
      valid_from: from,
      valid_to: null,
      [VERSION_HASH]: hash,
      [CHILDREN_HASH]: childrenHash,
    });
    own.forEach((list, i) => {
      for (const r of list) newKids[i]!.push({ ...r, valid_from: from, valid_to: null });
    });
  }
  counts.rows += await tx.bulk.write(m.table, newParents, "insert");
  for (const [i, child] of m.children.entries())
    counts.rows += await tx.bulk.write(child, newKids[i]!, "insert");
  return counts;
}

/** The columns a version compares: all but the toolkit's and those that only say when a row was seen. */
export function contentColumns(def: TableDef, volatile: ReadonlySet<string>): string[] {
  return def.columns.filter((c) => !NOT_CONTENT.has(c.name) && !volatile.has(c.name)).map((c) => c.name);
}

function content(row: Row, def: TableDef, volatile: ReadonlySet<string>): unknown[] {
  return contentColumns(def, volatile).map((c) => row[c] ?? null);
}

function fingerprint(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 22);
}

/** Rows grouped by what `of` says of each (its key), in their order. */
export function groupRows<T, K>(rows: readonly T[], of: (r: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const r of rows) {
    const k = of(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

const CHUNK = 400;

interface Current {
  hash: string;
  from: number;
  /** Its key and the columns to `compare`. */
  row?: Row;
}

/**
 * The current version of each of these parents' keys: its fingerprint, when it began and, with
 * `compare`, its row of those columns.
 */
async function currentVersions(
  db: Kysely<AnyDB>,
  def: TableDef,
  parents: readonly Row[],
  compare: readonly string[] | undefined,
): Promise<Map<unknown, Current>> {
  const of = keyOf(def.key);
  const out = new Map<unknown, Current>();
  const columns = [...new Set([...def.key, "valid_from", VERSION_HASH, ...(compare ?? [])])];
  for (let i = 0; i < parents.length; i += CHUNK) {
    const found = await db
      .selectFrom(def.name)
      .select(columns)
      .where("valid_to", "is", null)
      .where((eb) => {
        const chunk = parents.slice(i, i + CHUNK).map((p) => keyValues(db, def, p));
        // One key column (the common case) as one IN list, which the current-key index answers.
        if (def.key.length === 1)
          return eb(
            def.key[0]!,
            "in",
            chunk.map((kv) => kv[0]![1]),
          );
        return eb.or(chunk.map((kv) => eb.and(kv.map(([k, v]) => eb(k, "=", v)))));
      })
      .execute();
    for (const r of found) {
      const now: Current = { hash: String(r[VERSION_HASH] ?? ""), from: timeOf(r["valid_from"]) };
      out.set(of(r), compare ? { ...now, row: r as Row } : now);
    }
  }
  return out;
}

/** The key's values of `row`, bound as its columns' types (key values come from answers: always bound). */
export function keyValues(db: Kysely<AnyDB>, def: TableDef, row: Row): [string, unknown][] {
  const adapter = adapterOf(db);
  return def.key.map((k) => [k, adapter.bind(row[k], def.columns.find((c) => c.name === k)?.type ?? "text")]);
}

function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  const t = Date.parse(String(v));
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

/** Ends the parent's current version, and its children's, where the new one begins. */
async function closeVersion(db: Kysely<AnyDB>, m: Versioned, parent: Row, at: string): Promise<void> {
  for (const def of [m.table, ...m.children]) {
    let q = db
      .updateTable(def.name)
      .set({ valid_to: adapterOf(db).bind(at, "timestamp") })
      .where("valid_to", "is", null);
    for (const [k, v] of keyValues(db, m.table, parent)) q = q.where(k, "=", v);
    await q.execute();
  }
}
