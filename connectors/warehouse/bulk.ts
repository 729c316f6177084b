import type { Kysely } from "kysely";
import type { TableDef } from "../../schema/table.js";

export type BulkRow = Record<string, unknown>;

/** `upsert`: on the table's key, the last row of a key in the batch wins; `insert`: every row as is. */
export type WriteHow = "upsert" | "insert";

/**
 * The fast path for rows, bound to one transaction's connection: prepared statements reused
 * across the batch in SQLite, `COPY` (through a staging table for upserts) in Postgres.
 */
export interface BulkWriter {
  /** Writes typed rows (JS values as the mapping makes them); returns the rows written (distinct keys for an upsert). */
  write(def: TableDef, rows: readonly BulkRow[], how: WriteHow): Promise<number>;
  /** Deletes the rows of `def` whose `key` columns equal those of one of `keys`. */
  deleteMatching(def: TableDef, key: readonly string[], keys: readonly BulkRow[]): Promise<void>;
}

/** One transaction: Kysely for the statements, the bulk writer for rows, both on the same connection. */
export interface WarehouseTx {
  // biome-ignore lint/suspicious/noExplicitAny: rows of user-declared tables
  readonly db: Kysely<any>;
  readonly bulk: BulkWriter;
}

/** A double-quoted SQL identifier (table and column names come from pipeline files). */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The columns an upsert updates: every one but the key's. */
export function updatable(def: TableDef): string[] {
  return def.columns.map((c) => c.name).filter((c) => !def.key.includes(c));
}

/** A function giving a row's key as one Map key (the value itself for one column). */
export function keyOf(key: readonly string[]): (row: BulkRow) => unknown {
  if (key.length === 1) {
    const k = key[0]!;
    return (row) => row[k];
  }
  // Text made by concatenation (twice as fast as JSON.stringify of an array): a tag per value and
  // strings length-prefixed, so two different tuples never give the same text.
  return (row) => {
    let s = "";
    for (const k of key) {
      const v = row[k];
      s +=
        v === null || v === undefined
          ? "\u0000"
          : typeof v === "string"
            ? `\u0001${v.length}:${v}`
            : typeof v === "number"
              ? `\u0002${v}`
              : `\u0003${JSON.stringify(v)}`;
    }
    return s;
  };
}

/** The rows with one row per key, the last of each (keys seen twice keep their first place). */
export function lastPerKey(rows: readonly BulkRow[], key: readonly string[]): readonly BulkRow[] {
  const of = keyOf(key);
  const byKey = new Map<unknown, BulkRow>();
  for (const r of rows) byKey.set(of(r), r);
  return byKey.size === rows.length ? rows : [...byKey.values()];
}
