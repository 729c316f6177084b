import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { recentWarehouseRuns, warehouseRunView } from "../../engine/publish/views.js";
import { budgetStatus } from "../../store/budget-status.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";

async function runs(ctx: ToolContext, runId: string | undefined, limit: number) {
  if (runId === undefined) return { runs: await recentWarehouseRuns(ctx.warehouse, limit) };
  const run = await warehouseRunView(ctx.warehouse, runId);
  if (run) return { run };
  throw new ValidationError("runs", [
    { path: ["runId"], message: `no run "${runId.slice(0, 80)}"; call runs without runId for the latest` },
  ]);
}

async function budget(ctx: ToolContext) {
  const periods = (await budgetStatus(ctx.warehouse)).map(({ period, scope, limit, spent, remaining }) => ({
    period,
    scope,
    limit,
    spent,
    remaining,
  }));
  return {
    maxCreditsPerRun: ctx.maxCredits,
    budgets: periods,
    note: "a run spends at most the least of its maxCredits, maxCreditsPerRun and the budgets' remaining credits (null: no budget set)",
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
      annotations: readOnly,
    },
    (args) => answer(() => runs(ctx, args.runId, args.limit)),
  );

  server.registerTool(
    "budget",
    {
      title: "Credit budget",
      description:
        "Free: sends nothing. This server's ceiling per run and the warehouse's daily and monthly credit budgets: limit, spent, remaining.",
      annotations: readOnly,
    },
    () => answer(() => budget(ctx)),
  );
}
