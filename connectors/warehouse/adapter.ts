import type { ColumnType } from "./types.js";

/**
 * What differs between SQLite and Postgres, in one place: column types, how values are bound,
 * and a few capability flags. Everything else is plain Kysely.
 */
export interface WarehouseAdapter {
  readonly dialect: "sqlite" | "postgres";
  /** SQL type for a pipeline column type. */
  sqlType(type: ColumnType): string;
  /** A JS value ready to bind for a column of this type (booleans as 0/1 and JSON as text in SQLite). */
  bind(value: unknown, type: ColumnType): unknown;
  /** SQL for "now" as the column type `timestamp` expects it. */
  readonly nowIso: () => string;
  /** Whether `COPY` is available for bulk loads. */
  readonly supportsCopy: boolean;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParams: number;
  /** The schema tables live in (Postgres), for introspection. */
  readonly schema: string | undefined;
}

const SQLITE_TYPES: Record<ColumnType, string> = {
  text: "text",
  integer: "integer",
  number: "real",
  boolean: "integer",
  date: "text",
  timestamp: "text",
  json: "text",
};

const PG_TYPES: Record<ColumnType, string> = {
  text: "text",
  integer: "bigint",
  number: "double precision",
  boolean: "boolean",
  date: "date",
  timestamp: "timestamptz",
  json: "jsonb",
};

const nowIso = () => new Date().toISOString();

export const sqliteAdapter: WarehouseAdapter = {
  dialect: "sqlite",
  sqlType: (t) => SQLITE_TYPES[t],
  bind(value, type) {
    if (value === null || value === undefined) return null;
    if (type === "json") return JSON.stringify(value);
    if (type === "boolean") return value ? 1 : 0;
    return value;
  },
  nowIso,
  supportsCopy: false,
  maxParams: 32_000,
  schema: undefined,
};

export function postgresAdapter(schema: string | undefined): WarehouseAdapter {
  return {
    dialect: "postgres",
    sqlType: (t) => PG_TYPES[t],
    bind(value, type) {
      if (value === null || value === undefined) return null;
      // pg sends JS arrays as Postgres arrays; jsonb wants JSON text.
      if (type === "json") return JSON.stringify(value);
      return value;
    },
    nowIso,
    supportsCopy: true,
    maxParams: 65_000,
    schema,
  };
}

/** A JSON column's value: text in SQLite, already parsed by pg in Postgres. */
export function readJson<T = unknown>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/** Postgres column types (information_schema data_type) as pipeline column types. */
export const PG_COLUMN_TYPES: Readonly<Record<string, ColumnType>> = {
  bigint: "integer",
  integer: "integer",
  smallint: "integer",
  "double precision": "number",
  real: "number",
  numeric: "number",
  boolean: "boolean",
  date: "date",
  "timestamp with time zone": "timestamp",
  "timestamp without time zone": "timestamp",
  jsonb: "json",
  json: "json",
  text: "text",
  "character varying": "text",
};
