import { z } from "zod";
import { SLUG_PATTERN } from "./catalog.js";
import { scheduleSchema } from "./schedule.js";
import { COLUMN_TYPES } from "./table.js";
import { windowSchema } from "./window.js";

/** Table and column names: plain snake_case identifiers, so no SQL is ever built from free text. */
const sqlIdentifier = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, {
    message: "must be a snake_case identifier (a-z, 0-9, _; at most 63 characters)",
  })
  .refine((v) => !v.startsWith("skillsync_"), {
    message: "the skillsync_ prefix is reserved for the toolkit's own tables",
  });

/**
 * Prefixes a database keeps for its own tables. A pipeline file runs on either dialect, so both are
 * refused everywhere: SQLite will not create a `sqlite_` table, and a `pg_` one would be hidden
 * behind the system catalog of that name (pg_catalog comes first on the search path).
 */
const RESERVED_TABLE_PREFIXES = [
  ["sqlite_", "SQLite"],
  ["pg_", "Postgres"],
] as const;

/** A table or view name: an identifier no database has taken for itself. */
const tableName = sqlIdentifier.superRefine((name, ctx) => {
  const reserved = RESERVED_TABLE_PREFIXES.find(([prefix]) => name.startsWith(prefix));
  if (!reserved) return;
  const [prefix, db] = reserved;
  ctx.addIssue({
    code: "custom",
    message: `"${name}" starts with ${prefix}, which ${db} keeps for its own tables; rename it (e.g. "${name.slice(prefix.length) || "data"}_data")`,
  });
});

const paramName = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_]{0,62}$/, { message: "must be a simple name (letters, digits, _)" });

const PARAM_TYPES = ["string", "integer", "number", "boolean", "date"] as const;
const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const paramDefSchema = z.strictObject({
  type: z.enum(PARAM_TYPES).default("string"),
  description: z.string().optional(),
  default: z.union([scalar, z.array(scalar)]).optional(),
  required: z.boolean().default(false),
  /** A list param: each `--param name=value` adds a value. */
  repeatable: z.boolean().default(false),
  enum: z.array(z.string()).min(1).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
});

const inputSourceSchema = z.union([
  z.strictObject({ param: paramName }),
  z.strictObject({ list: z.array(z.union([z.string(), z.number()])).min(1) }),
  z.strictObject({ file: z.string().min(1), column: z.string().optional() }),
  z.strictObject({ sql: z.string().min(1) }),
  z.strictObject({ sheet: z.strictObject({ spreadsheet: z.string().min(1), range: z.string().min(1) }) }),
]);

const inputSchema = z.strictObject({
  /** The name the request template uses: `{{name}}`. */
  name: paramName,
  /** One source, or alternatives tried in order until one yields values. */
  from: z.union([inputSourceSchema, z.array(inputSourceSchema).min(1)]),
});

const intOrTemplate = z.union([
  z.number().int().min(0),
  z.string().regex(/^\{\{\s*[a-zA-Z][a-zA-Z0-9_]*\s*\}\}$/),
]);

const batchSchema = z.strictObject({
  /** The request member that carries the comma-joined identifiers. */
  member: z.string().min(1),
  size: z.number().int().min(1).max(100).default(100),
  maxChars: z.number().int().min(1).max(60_000).default(60_000),
});

/** Names every object has through its prototype (`__proto__`, `constructor`, `toString`…). */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * A dot path read from an answer. No segment may name a prototype member: `__proto__` or
 * `constructor` would read (and load) the prototype instead of the answer's own data.
 */
const memberPath = z
  .string()
  .min(1)
  .refine((path) => !path.split(".").some((part) => PROTOTYPE_NAMES.has(part.replace(/^\$|\[\]$/g, ""))), {
    message: `must not name a prototype member (${["__proto__", "constructor", "prototype"].join(", ")}…)`,
  });

const paginateSchema = z.strictObject({
  member: z.string().min(1),
  style: z.enum(["page", "offset"]).default("page"),
  start: z.number().int().min(0).optional(),
  /** For offset paging: how far each call moves (a number or a `{{param}}`). */
  step: intOrTemplate.optional(),
  maxPages: intOrTemplate.default(1),
  /** Path in `data` to the total number of records, to stop without asking for an empty page. */
  total: memberPath.optional(),
});

/** A regular expression's source, refused when it does not compile. */
const regexSource = z
  .string()
  .min(1)
  .refine(
    (source) => {
      try {
        new RegExp(source);
        return true;
      } catch {
        return false;
      }
    },
    { message: "must be a regular expression" },
  );

export const TRANSFORMS = [
  "yyyymmdd",
  "money",
  "percent",
  "first",
  "join",
  "name",
  "lower",
  "upper",
  "trim",
  "docdb",
  "company_name",
  "min",
  "max",
] as const;

const columnSpecSchema = z.union([
  z.enum(COLUMN_TYPES),
  z.strictObject({
    /** A dot path in the record (default: the column name in camelCase), or `$input`, `$index`, `$observedAt`, `$skill`, `$request.x`, `$param.x`, `$data.x` (a member of the answer's data beside the records). */
    from: memberPath.optional(),
    type: z.enum(COLUMN_TYPES).default("text"),
    transform: z.enum(TRANSFORMS).optional(),
    /** A constant value instead of a path. */
    value: scalar.optional(),
    /** The value only for records whose `member` matches the regular expression `matches`; null for the others. */
    when: z.strictObject({ member: memberPath, matches: regexSource }).optional(),
    /** What the column holds: its comment in the warehouse (`COMMENT ON COLUMN` in Postgres). */
    description: z.string().min(1).optional(),
  }),
]);

/**
 * A view column the view's SQL computes: its type (what SQLite cannot tell: exports, `tables`) and
 * what it holds (its comment in the warehouse). A bare type is the type alone. A column that shows
 * a table's column as it is needs neither: it takes that column's.
 */
const viewColumnSchema = z.union([
  z.enum(COLUMN_TYPES),
  z.strictObject({
    type: z.enum(COLUMN_TYPES).optional(),
    description: z.string().min(1).optional(),
  }),
]);

/** A view over the warehouse's tables, made (or re-made when its SQL changes) by each run. */
const viewSchema = z.strictObject({
  name: tableName,
  /** What one row of the view is: the view's comment in the warehouse (`COMMENT ON VIEW` in Postgres). */
  description: z.string().min(1).optional(),
  /** Columns the SQL computes (or renames): their types and descriptions. */
  columns: z.record(sqlIdentifier, viewColumnSchema).default({}),
  sql: z.string().min(1),
});

const childSourceSchema = z.strictObject({
  path: memberPath,
  /** Constant columns for the rows this path gives (e.g. which classification scheme). */
  set: z.record(sqlIdentifier, scalar).optional(),
});

const childSchema = z.strictObject({
  /** Path inside the parent record to an array; or several paths that fill one table. */
  path: z.union([memberPath, z.array(childSourceSchema).min(1)]),
  table: tableName,
  /** What one row of the child table is: the table's comment in the warehouse. */
  description: z.string().min(1).optional(),
  columns: z.record(sqlIdentifier, columnSpecSchema).default({}),
  /**
   * Column for array elements that are scalars (strings, numbers): `value` when the child declares
   * no columns. A child that declares columns (its elements are objects) has none unless named here.
   */
  valueColumn: sqlIdentifier.optional(),
  extra: z.union([sqlIdentifier, z.literal(false)]).default("extra"),
});

export const recordsSchema = z
  .strictObject({
    /** Dot path in `data` to the array of records (`products`, `data`, `results`); `.` for `data` itself. */
    path: memberPath,
    table: tableName,
    /** What one row of the table is: its comment in the warehouse (default: the pipeline's description). */
    description: z.string().min(1).optional(),
    key: z.array(sqlIdentifier).min(1).optional(),
    /**
     * `merge` upserts on the key; `replace` keeps only the last complete run's rows; `append` adds
     * every row; `history` keeps a version per change of a key's row or its children
     * (`valid_from`, `valid_to`, `load_id`), with `<table>_current` and `<table>_changes` views.
     */
    mode: z.enum(["append", "replace", "merge", "history"]).default("merge"),
    columns: z.record(sqlIdentifier, columnSpecSchema).default({}),
    /** Every member the columns do not name lands here as JSON (false: drop them, not recommended). */
    extra: z.union([sqlIdentifier, z.literal(false)]).default("extra"),
    /** Infer columns from the data (generic pipelines): new members add columns. */
    inferColumns: z.boolean().default(false),
    indexes: z.array(z.array(sqlIdentifier).min(1)).optional(),
    children: z.array(childSchema).default([]),
  })
  .refine((r) => (r.mode !== "merge" && r.mode !== "history") || (r.key?.length ?? 0) > 0, {
    message: "mode merge and mode history need a key",
    path: ["key"],
  })
  .refine(
    (r) => r.mode !== "history" || [r.table, ...r.children.map((c) => c.table)].every((t) => t.length <= 55),
    {
      message: "a history table's name takes at most 55 characters (its views add _current and _changes)",
      path: ["table"],
    },
  )
  .refine((r) => r.children.length === 0 || (r.key?.length ?? 0) > 0, {
    message: "child tables need the parent's key, to link their rows",
    path: ["key"],
  })
  .refine((r) => r.inferColumns || (r.key ?? []).every((k) => k in r.columns), {
    message: "every key column must be one of records.columns (else every record would be rejected)",
    path: ["key"],
  });

export const duration = z.union([
  z.literal(0),
  z.string().regex(/^\d+(ms|s|m|h|d|w)$/, { message: 'must be a duration such as "30m", "24h", "7d" or 0' }),
]);

/** Asynchronous report operations: `skill` creates the report, `status` is polled, `download` fetches each CSV part. */
const reportSchema = z.strictObject({
  status: z.string().regex(SLUG_PATTERN, { message: "must be the status operation's slug" }),
  download: z.string().regex(SLUG_PATTERN, { message: "must be the download operation's slug" }),
  /** Backoff between status polls: `initial`, growing by `factor` up to `max`; give up after `timeout` (per run). */
  poll: z
    .strictObject({
      initial: duration.default("2s"),
      max: duration.default("1m"),
      factor: z.number().min(1).max(10).default(2),
      timeout: duration.default("2h"),
    })
    .prefault({}),
});

export const pipelineSchema = z.strictObject({
  name: z
    .string()
    .max(100, { message: "must be at most 100 characters (the server takes names up to 100)" })
    .regex(SLUG_PATTERN, { message: "must be lowercase words joined by hyphens" }),
  description: z.string().optional(),
  skill: z.string().regex(SLUG_PATTERN, { message: "must be an operation slug such as marketplace-search" }),
  params: z.record(paramName, paramDefSchema).default({}),
  input: inputSchema.optional(),
  /** Request members; strings may hold `{{param}}` templates. A member whose params are unset is left out. */
  request: z.record(z.string(), z.unknown()).default({}),
  batch: batchSchema.optional(),
  paginate: paginateSchema.optional(),
  /** Date windows: the range cut into windows, each asked once (`{{window.start}}`, `{{window.end}}`). */
  window: windowSchema.optional(),
  records: recordsSchema,
  /** Makes `skill` an asynchronous report: create once, poll, download and load each CSV part. */
  report: reportSchema.optional(),
  /** Reuse a stored response this young instead of paying again (0: always call). */
  freshness: duration.default("24h"),
  /** Credit ceiling for this pipeline within one run. */
  maxCredits: z.number().positive().optional(),
  /** Fail the run (exit 1) when records are rejected, a column's member is in no record, or records have members no column reads (as `run --strict`). */
  strict: z.boolean().default(false),
  /**
   * `warn` (default): a run that rejected records ends `warnings`, exit 5. `allow`: rejected records
   * are expected (kept in skillsync_rejects, still listed as warnings) and the run ends `succeeded`.
   */
  rejects: z.enum(["warn", "allow"]).default("warn"),
  /** At most this many calls of this pipeline in flight (within the run's --concurrency). */
  concurrency: z.number().int().min(1).max(256).optional(),
  /** SQL statements run after a successful load (views over the tables). Only CREATE VIEW statements. */
  views: z.array(viewSchema).default([]),
  /** When `skillsync schedule` runs this pipeline (cron, time zone, params, failure pause). */
  schedule: scheduleSchema.optional(),
  /** After a successful run, push the rows it loaded into a Google Sheets tab (`{{param}}` allowed in spreadsheet and tab). */
  sheet: z
    .strictObject({
      spreadsheet: z.string().min(1),
      tab: z.string().min(1).max(100),
      mode: z.enum(["replace", "append"]).default("replace"),
      /** Which table to push (default: records.table); only the rows of the run. */
      table: tableName.optional(),
    })
    .optional(),
});

export type PipelineFile = z.infer<typeof pipelineSchema>;
export type RecordsSpec = z.infer<typeof recordsSchema>;
export type ChildSpec = z.infer<typeof childSchema>;
export type ColumnSpec = z.infer<typeof columnSpecSchema>;
export type ParamDef = z.infer<typeof paramDefSchema>;
export type ReportSpec = z.infer<typeof reportSchema>;
export type InputSource = z.infer<typeof inputSourceSchema>;

const DURATION_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

export function durationMs(value: string | 0): number {
  if (value === 0) return 0;
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(value);
  return m ? Number(m[1]) * (DURATION_MS[m[2]!] ?? 0) : 0;
}

/** The JSON Schema editors use to complete pipeline files (written to schema/pipeline.schema.json). */
export function pipelineJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(pipelineSchema, { target: "draft-2020-12", io: "input" }),
    $id: "https://skillsync.dev/schema/pipeline.schema.json",
    title: "skillsync pipeline file",
  };
}
