import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { fromZodIssues, type Issue, ValidationError } from "../../core/errors.js";
import { defineWatch, readAlerts, removeWatch, watchWarnings } from "../../engine/watch/index.js";
import { objectKeysAt } from "../../schema/keys.js";
import { watchFileSchema } from "../../schema/watch.js";
import { listWatches } from "../../store/watches.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";

const FREE = "Free: reads the local warehouse, sends nothing to the API.";
const FREE_WRITE = "Free: writes the local warehouse only, sends nothing to the API.";
const MAX_ALERTS = 1000;

/** What create_watch accepts: a watch file's members and its name (POST /watches' body without backfill). */
const createWatchSchema = watchFileSchema.extend({ name: z.string().min(1).max(100) });

/** An alert as store/alerts.ts `Alert` lists it, without `suppressed` (held-back alerts are never listed). */
const alertOutput = z.object({
  id: z.string().describe("stable: the same match found twice is one alert"),
  watch: z.string(),
  table: z.string(),
  key: z.string(),
  column: z.string().nullable().describe("the column or child table; null for a key's first version"),
  change: z.enum(["changed", "appeared"]),
  old: z.string().nullable(),
  new: z.string().nullable(),
  loadId: z.number(),
  runId: z.string().nullable(),
  changedAt: z.string(),
  createdAt: z.string(),
});

const amountOutput = z.object({ value: z.number(), percent: z.boolean() });

/** store/watches.ts `WatchRow`; its spec is as stored (schema/watch.ts `WatchSpec`). */
const watchOutput = z.object({
  name: z.string(),
  table: z.string(),
  spec: z.looseObject({
    table: z.string(),
    columns: z.array(z.string()).nullable().describe("null: every content column and child table"),
    when: z.looseObject({
      to: z.string().optional(),
      from: z.string().optional(),
      fellBy: amountOutput.optional(),
      roseBy: amountOutput.optional(),
      appeared: z.boolean().optional(),
    }),
    notify: z.looseObject({
      url: z.string().nullable().describe("env:NAME, or hash:… for a literal URL (kept only as its hash)"),
      email: z.array(z.string()),
      digest: z.string(),
      cooldownMs: z.number().nullable(),
    }),
    allKeys: z.boolean().describe("true: every key of the table; false: `keys` of them"),
  }),
  createdAt: z.string(),
  keys: z.number().describe("how many keys it names (0 with spec.allKeys)"),
});

/** The arguments checked as POST /watches checks its body: unknown members named with the nearest known one. */
function watchRequest(args: unknown) {
  const r = createWatchSchema.safeParse(args);
  if (!r.success) {
    throw new ValidationError(
      "create_watch",
      fromZodIssues(r.error.issues, {
        input: args,
        knownKeys: (path) => objectKeysAt(createWatchSchema, path),
      }),
    );
  }
  // A path would name a file on the server's machine: the agent names the keys in the call.
  if (r.data.keys && "file" in r.data.keys) {
    throw new ValidationError("create_watch", [
      {
        path: ["keys", "file"],
        message: "the server reads no files: give the keys in the request, keys.list or keys.sql",
      },
    ]);
  }
  return r.data;
}

const nameTaken = (issues: readonly Issue[]) =>
  issues.some((i) => i.path[0] === "name" && i.message.includes("already exists"));

async function createWatch(ctx: ToolContext, args: unknown) {
  const { name, ...file } = watchRequest(args);
  try {
    // Writes (and keys.sql reads) take their turn with runs and queries (context.ts oneAtATime).
    const watch = await ctx.exclusive(() =>
      defineWatch(ctx.warehouse, name, file, { source: "create_watch" }),
    );
    return { watch, warnings: await watchWarnings(watch.spec) };
  } catch (err) {
    if (!(err instanceof ValidationError) || !nameTaken(err.issues)) throw err;
    throw new ValidationError("create_watch", [
      {
        path: ["name"],
        message: `a watch named "${name}" already exists: remove it first (remove_watch) or choose another name`,
      },
    ]);
  }
}

interface AlertsArgs {
  since?: string | undefined;
  watch?: string | undefined;
  limit: number;
}

async function alerts(ctx: ToolContext, q: AlertsArgs) {
  try {
    const found = await readAlerts(ctx.warehouse, q);
    return { alerts: found.map(({ suppressed: _held, ...a }) => a) };
  } catch (err) {
    // readAlerts words it for the CLI (--since); here it was the argument `since`.
    if (err instanceof ValidationError && err.source === "--since")
      throw new ValidationError(
        "list_alerts",
        err.issues.map((i) => ({ ...i, path: ["since"] })),
      );
    throw err;
  }
}

/** The arguments as agents see them; checked in full by `watchRequest`, so every problem is worded as POST /watches words it. */
const createWatchInput = z.looseObject({
  name: z.string().describe("a-z, 0-9, _ and -; 1 to 63 characters"),
  table: z.string().describe("a table that keeps history (list_tables; e.g. patent_legal_status)"),
  keys: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('{"list": ["K1", …]} or {"sql": "select …"} (first column); absent: every key'),
  columns: z.array(z.string()).optional().describe("columns or child tables to watch; absent: all"),
  when: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('{"to", "from", "fell_by": "10%" | N, "rose_by", "appeared": true}; absent: any change'),
  notify: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('{"url": "env:NAME", "email": [..], "digest": "load" | "day" | "none", "cooldown": "7d"}'),
});

export function registerWatchTools(server: McpServer, ctx: ToolContext): void {
  registerWatchReads(server, ctx);
  registerWatchWrites(server, ctx);
}

/** list_alerts and list_watches: reads, free. */
function registerWatchReads(server: McpServer, ctx: ToolContext): void {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  server.registerTool(
    "list_alerts",
    {
      title: "List alerts",
      description: `${FREE} Alerts the watches recorded, oldest first: key, column, old → new, load.`,
      inputSchema: {
        since: z
          .string()
          .max(40)
          .optional()
          .describe('"last" (the latest load that alerted), YYYY-MM-DD or a load id'),
        watch: z.string().max(100).optional(),
        limit: z.number().int().min(1).max(MAX_ALERTS).default(100),
      },
      outputSchema: { alerts: z.array(alertOutput) },
      annotations: readOnly,
    },
    (args) => answer(() => alerts(ctx, args)),
  );
  server.registerTool(
    "list_watches",
    {
      title: "List watches",
      description: `${FREE} The watches: table, keys, condition, where they send.`,
      outputSchema: { watches: z.array(watchOutput) },
      annotations: readOnly,
    },
    () => answer(async () => ({ watches: await listWatches(ctx.warehouse.db) })),
  );
}

/** create_watch and remove_watch: writes to the warehouse, free (no API call). */
function registerWatchWrites(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "create_watch",
    {
      title: "Create a watch",
      description: `${FREE_WRITE} Spends no credit. Watches a history table and alerts on changes loaded from now on (list_alerts).`,
      inputSchema: createWatchInput,
      outputSchema: { watch: watchOutput, warnings: z.array(z.string()) },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) => answer(() => createWatch(ctx, args)),
  );
  server.registerTool(
    "remove_watch",
    {
      title: "Remove a watch",
      description: `${FREE_WRITE} Removes a watch; its alerts stay.`,
      inputSchema: { name: z.string().min(1).max(100) },
      outputSchema: { removed: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      answer(async () => {
        await ctx.exclusive(() => removeWatch(ctx.warehouse, args.name, "remove_watch"));
        return { removed: args.name };
      }),
  );
}
