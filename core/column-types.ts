/**
 * The types a column of ours has — the one list: a pipeline file's `columns` (its zod enum in
 * schema/table.ts), the types inference picks, each adapter's SQL type for it, and (with bytes) a
 * read's result columns and the columns of a row file (`skillsync export`).
 */
export const COLUMN_TYPES = [
  "text",
  "integer",
  "number",
  "decimal",
  "boolean",
  "date",
  "timestamp",
  "json",
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** A column as read out of a warehouse or written to a row file: a column type, or bytes (a blob or bytea). */
export type DataType = ColumnType | "blob";
