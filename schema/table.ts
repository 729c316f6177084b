import type { ColumnType } from "../core/column-types.js";

export { COLUMN_TYPES, type ColumnType } from "../core/column-types.js";

export interface ColumnDef {
  name: string;
  type: ColumnType;
  /** What the column holds: its comment in the warehouse (Postgres). */
  description?: string | undefined;
}

/** A table as the pipeline engine needs it: typed columns, a key (unique), indexes. */
export interface TableDef {
  readonly name: string;
  readonly columns: readonly ColumnDef[];
  readonly key: readonly string[];
  /** Whether the key is unique (merge and replace upsert on it; append keeps every row). */
  unique?: boolean;
  indexes?: string[][];
  /**
   * `mode: history`: the table keeps versions. `parent`: one row per key and `valid_from`, at most
   * one current (`valid_to` null) per key; `child`: rows of a parent's version (`valid_from` is the
   * parent version's). The key is then not unique on its own.
   */
  versioned?: "parent" | "child";
  /** What one row is: the table's comment in the warehouse (Postgres). */
  description?: string | undefined;
  /**
   * A child table's parent, when each row belongs to exactly one parent row: these columns of the
   * child equal the parent's columns of the same names, which are the parent's primary key (a
   * foreign key where the database has them and both tables were made with their keys).
   */
  parent?: { readonly table: string; readonly columns: readonly string[] } | undefined;
}
