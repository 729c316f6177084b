import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { recentWarehouseRuns, warehouseRunView } from "../../engine/publish/run-and-pipeline-views.js";
import { budgetStatus, type CeilingStatus, ceilingStatuses } from "../../store/budget-status.js";
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

/** What this server's total (`--max-credits`) has left: every run it started counts. */
export async function serverCredits(ctx: ToolContext): Promise<CeilingStatus> {
  const [status] = await ceilingStatuses(ctx.warehouse, [ctx.total]);
  return status!;
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
    server: {
      ...(await serverCredits(ctx)),
      note: "this server's total (--max-credits): all the runs started through it together, for as long as it runs",
    },
    budgets: periods,
    note: "a run spends at most the least of its maxCredits, the server's remaining credits and the budgets' remaining credits (null: no budget set)",
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
        "Free: sends nothing. What this server's credit total (shared by all the runs started through it) has left, and the warehouse's daily and monthly credit budgets: limit, spent, remaining.",
      annotations: readOnly,
    },
    () => answer(() => budget(ctx)),
  );
}
