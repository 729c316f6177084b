import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { recentWarehouseRuns, warehouseRunView } from "../../engine/publish/run-and-pipeline-views.js";
import { budgetEstimated } from "../../engine/run/unpriced.js";
import { budgetStatus, type CeilingStatus, ceilingStatuses } from "../../store/budget-status.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";

/** `RunStatus` (store/runs.ts): a run's status as this process knows it. */
export const runStatusOutput = z.enum([
  "running",
  "succeeded",
  "warnings",
  "failed",
  "ceiling",
  "interrupted",
]);

/** What the server's total has left (`CeilingStatus.remaining`: null only without a limit). */
export const serverCreditsLeftOutput = z
  .number()
  .nullable()
  .describe("what this server's total has left for its runs");

/** A ceiling as it stands (store/budget-status.ts `CeilingStatus`); null: no limit set. */
const ceilingStatusOutput = {
  limit: z.number().nullable(),
  spent: z.number(),
  remaining: z.number().nullable(),
};

/** The daily or monthly budget as the run tool shows it; budget adds its scope. */
export const budgetPeriodOutput = z.object({
  period: z.enum(["daily", "monthly"]),
  ...ceilingStatusOutput,
});

/** A warehouse run as `runRowView` (engine/publish/run-and-pipeline-views.ts) shows it. */
const runViewOutput = z.object({
  runId: z.string(),
  warehouseRunId: z.string(),
  pipeline: z.string().describe("the run's pipelines, comma-separated"),
  trigger: z.string().describe("what started it: mcp, manual, server, schedule"),
  // Read from the warehouse, which other processes (and versions) write too: any text is shown.
  status: z.string().describe(runStatusOutput.options.join(", ")),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  calls: z.object({
    done: z.number(),
    planned: z.number(),
    cached: z.number(),
    shared: z.number(),
    failed: z.number(),
    rateLimited: z.number(),
  }),
  credits: z.object({
    spent: z.number(),
    saved: z.number(),
    estimated: z
      .boolean()
      .describe("priced by the catalog's guesses, not the account's prices: the bill may differ"),
  }),
  items: z.object({ reused: z.number() }),
  rows: z.object({ written: z.number(), rejected: z.number() }),
  mapping: z.object({ emptyColumns: z.number(), unmappedMembers: z.number() }),
  warnings: z.array(z.string()),
  stopReason: z.string().nullable(),
  errors: z.array(z.object({ code: z.string(), message: z.string() })),
});

/** Without runId the latest runs; with it, that one run. */
const runsOutput = {
  runs: z.array(runViewOutput).optional().describe("the latest runs, newest first (without runId)"),
  run: runViewOutput.optional().describe("the run named by runId"),
};

const budgetOutput = {
  server: z.object({ ...ceilingStatusOutput, note: z.string() }),
  budgets: z.array(budgetPeriodOutput.extend({ scope: z.string() })),
  note: z.string(),
  estimated: z
    .boolean()
    .describe(
      "the credits are reserved at the catalog's guessed prices, not the account's: the bill may differ",
    ),
};

async function runs(ctx: ToolContext, runId: string | undefined, limit: number) {
  if (runId === undefined) return { runs: await recentWarehouseRuns(ctx.warehouse, limit) };
  const run = await warehouseRunView(ctx.warehouse, runId);
  if (run) return { run };
  throw new ValidationError("runs", [
    { path: ["runId"], message: `no run "${runId.slice(0, 80)}"; call runs without runId for the latest` },
  ]);
}

/** What this server's total (`--max-credits`) has left: every run it started counts. */
export async function serverCredits(ctx: ToolContext): Promise<CeilingStatus> {
  const [status] = await ceilingStatuses(ctx.warehouse, [ctx.total]);
  return status!;
}

/** Said where credits are priced by the catalog's guesses (docs/pricing.md). */
export const ESTIMATED_NOTE =
  "credits are estimated: priced by the catalog, not the account's prices (a price file, --prices, gives them)";

async function budget(ctx: ToolContext) {
  const estimated = budgetEstimated(ctx.prices, ctx.pipelines);
  const periods = (await budgetStatus(ctx.warehouse)).map(({ period, scope, limit, spent, remaining }) => ({
    period,
    scope,
    limit,
    spent,
    remaining,
  }));
  return {
    server: {
      ...(await serverCredits(ctx)),
      note: "this server's total (--max-credits): all the runs started through it together, for as long as it runs",
    },
    budgets: periods,
    note: `a run spends at most the least of its maxCredits, the server's remaining credits and the budgets' remaining credits (null: no budget set)${estimated ? `; ${ESTIMATED_NOTE}` : ""}`,
    estimated,
  };
}

export function registerStatusTools(server: McpServer, ctx: ToolContext): void {
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  server.registerTool(
    "runs",
    {
      title: "Runs",
      description:
        "Free: sends nothing. The warehouse's latest runs (whatever started them: this server, the CLI, the scheduler) with status, credits spent, calls and rows; or one run by runId.",
      inputSchema: {
        runId: z.string().min(1).max(100).optional().describe("one run's id, as run returned it"),
        limit: z.number().int().min(1).max(200).default(20),
      },
      outputSchema: runsOutput,
      annotations: readOnly,
    },
    (args) => answer(() => runs(ctx, args.runId, args.limit)),
  );

  server.registerTool(
    "budget",
    {
      title: "Credit budget",
      description:
        "Free: sends nothing. What this server's credit total (shared by all the runs started through it) has left, and the warehouse's daily and monthly credit budgets: limit, spent, remaining.",
      outputSchema: budgetOutput,
      annotations: readOnly,
    },
    () => answer(() => budget(ctx)),
  );
}
