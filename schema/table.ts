export const COLUMN_TYPES = ["text", "integer", "number", "boolean", "date", "timestamp", "json"] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnDef {
  name: string;
  type: ColumnType;
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
}
