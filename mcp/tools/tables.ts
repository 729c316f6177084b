import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import {
  ANSWER_BOUNDS,
  ANSWER_MAX_BYTES,
  CELL_MAX_BYTES,
  truncationNotes,
} from "../../engine/publish/answer-bounds.js";
import { describeTable, type TableDescription } from "../../engine/publish/describe-table.js";
import { readOnlyQuery } from "../../engine/publish/query.js";
import { tableSummaries, toolkitTablesRead } from "../../engine/publish/read-table.js";
import { COLUMN_TYPES } from "../../schema/table.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";

const MAX_QUERY_ROWS = 1000;
const DEFAULT_QUERY_ROWS = 100;
const FREE = "Free: reads the local warehouse, sends nothing to the API.";

const listTablesOutput = {
  tables: z.array(z.object({ name: z.string(), rows: z.number(), columns: z.array(z.string()) })),
};

/** `TableDescription` (engine/publish/describe-table.ts) with its example row. */
const describeTableOutput = {
  table: z.string(),
  columns: z.array(z.object({ name: z.string(), type: z.enum(COLUMN_TYPES).nullable() })),
  key: z.array(z.string()).describe("the columns of the table's unique key (empty for views)"),
  rows: z.number(),
  example: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the first row in key order, typed (null for an empty table)"),
  exampleNote: z.string().optional().describe("which cells of the example were cut"),
};

const queryOutput = {
  rows: z.array(z.record(z.string(), z.unknown())),
  rowCount: z.number(),
  truncated: z.boolean(),
  truncatedBy: z.enum(["rows", "bytes"]).optional(),
  cellsCut: z.number().optional(),
  note: z.string().optional().describe("what was left out and how to get it"),
};

/** A user table's description, or a refusal naming where to find the tables. */
export async function tableNamed(
  ctx: ToolContext,
  name: string,
  example: boolean,
): Promise<TableDescription> {
  const d = await describeTable(ctx.warehouse, name, { hints: ctx.columnTypes, example });
  if (d) return d;
  throw new ValidationError("table", [
    { path: ["table"], message: `no table "${name.slice(0, 100)}"; call list_tables for the names` },
  ]);
}

async function listTables(ctx: ToolContext) {
  const tables = (await tableSummaries(ctx.warehouse, ctx.columnTypes)).map((t) => ({
    name: t.name,
    rows: t.rows,
    columns: t.columns.map((c) => c.name),
  }));
  return { tables };
}

/**
 * A refusal of the one read-only path (connectors/warehouse/read-only.ts: its first check, or the
 * database) with what an agent can do about it.
 */
function readOnlyRefusal(ctx: ToolContext, err: unknown): never {
  if (!(err instanceof ValidationError)) throw err;
  const dialect = ctx.warehouse.adapter.displayName;
  throw new ValidationError(
    err.source,
    [
      ...err.issues,
      {
        path: [],
        message: `this tool only reads: send one SELECT, WITH, VALUES or EXPLAIN statement in ${dialect}'s SQL (list_tables and describe_table give the names); data comes in through plan and run`,
      },
    ],
    { cause: err },
  );
}

/**
 * The toolkit's own tables are for `runs` and `budget`, not for `query`, as `list_tables` does not
 * show them: told from the database's plan of the statement (views included), not from its text.
 * This keeps agents on the tables they were shown; those tables hold nothing secret, and what
 * keeps the warehouse safe is the read path's role and limits (docs/read-only.md).
 */
async function refuseToolkitReads(ctx: ToolContext, text: string): Promise<void> {
  const read = await ctx.exclusive(() => toolkitTablesRead(ctx.warehouse, text));
  if (!read.length) return;
  throw new ValidationError("query", [
    {
      path: ["sql"],
      message: `reads the toolkit's own ${read.join(", ")}, which list_tables does not show: query the tables list_tables gives; runs, loads and credits come from the runs and budget tools`,
    },
  ]);
}

async function query(ctx: ToolContext, text: string, maxRows: number) {
  await refuseToolkitReads(ctx, text);
  // Through the one read-only path: its first check refuses what cannot be a single read.
  const r = await ctx
    .exclusive(() => readOnlyQuery(ctx.warehouse, text, { maxRows, ...ANSWER_BOUNDS }))
    .catch((err: unknown) => readOnlyRefusal(ctx, err));
  const t = r.truncation ?? { truncatedBy: undefined, cellsCut: 0 };
  const notes = truncationNotes(
    t,
    maxRows,
    `add a LIMIT, aggregate, or ask for up to ${MAX_QUERY_ROWS} with maxRows`,
  );
  return {
    rows: r.rows,
    rowCount: r.rows.length,
    truncated: r.truncated,
    ...(r.truncated ? { truncatedBy: t.truncatedBy } : {}),
    ...(t.cellsCut ? { cellsCut: t.cellsCut } : {}),
    ...(notes.length ? { note: notes.join("; ") } : {}),
  };
}

export function registerTableTools(server: McpServer, ctx: ToolContext): void {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  server.registerTool(
    "list_tables",
    {
      title: "List tables",
      description: `${FREE} The warehouse's tables and views with their row counts and column names.`,
      outputSchema: listTablesOutput,
      annotations: readOnly,
    },
    () => answer(() => listTables(ctx)),
  );

  server.registerTool(
    "describe_table",
    {
      title: "Describe a table",
      description: `${FREE} One table's columns with types, its key, its row count and an example row (a cell longer than ${CELL_MAX_BYTES} bytes cut and marked).`,
      inputSchema: { table: z.string().min(1).max(200).describe("a name from list_tables") },
      outputSchema: describeTableOutput,
      annotations: readOnly,
    },
    (args) => answer(() => tableNamed(ctx, args.table, true)),
  );

  server.registerTool(
    "query",
    {
      title: "Query the warehouse",
      description: `${FREE} Runs one read-only SQL statement (SELECT, WITH, VALUES or EXPLAIN) and returns at most maxRows rows (default ${DEFAULT_QUERY_ROWS}, at most ${MAX_QUERY_ROWS}) and at most ${ANSWER_MAX_BYTES} bytes of rows as JSON; a cell longer than ${CELL_MAX_BYTES} bytes is cut and ends with "…[cut: first K of N bytes]". A cut answer says truncated: true, truncatedBy (rows or bytes) and a note. Writes are refused. The SQL dialect is the warehouse's (SQLite or Postgres).`,
      inputSchema: {
        sql: z.string().min(1).max(100_000).describe("one SELECT, WITH, VALUES or EXPLAIN statement"),
        maxRows: z.number().int().min(1).max(MAX_QUERY_ROWS).default(DEFAULT_QUERY_ROWS),
      },
      outputSchema: queryOutput,
      annotations: readOnly,
    },
    (args) => answer(() => query(ctx, args.sql, args.maxRows)),
  );
}
