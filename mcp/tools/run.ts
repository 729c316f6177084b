import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { paramLists } from "../../engine/define/params.js";
import { countRows } from "../../engine/publish/read-table.js";
import { type RunReporter, type RunSummary, runPipelines } from "../../engine/run/runner.js";
import { budgetStatus } from "../../store/budget-status.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";
import { pipelineInput, pipelineNamed } from "./pipelines.js";

/** The ceiling a run gets: the agent's own, refused when it asks for more than the server allows. */
export function runCeiling(asked: number, server: number): number {
  if (asked > server) {
    throw new ValidationError("run", [
      {
        path: ["maxCredits"],
        message: `${asked} is above this server's ceiling of ${server} credits; ask for ${server} or less (plan shows what a run needs)`,
      },
    ]);
  }
  return asked;
}

/** What a run's status means for the agent, and what it can do next. */
function exitState(s: RunSummary, ceiling: number): string {
  switch (s.status) {
    case "succeeded":
      return "succeeded: every planned call was answered and loaded";
    case "ceiling":
      return `stopped at a credit ceiling (${s.stopReason ?? `${ceiling} credits`}); what was loaded stays. Run again with the same pipeline and params to resume, within a larger ceiling or after the budget resets`;
    case "interrupted":
      return "interrupted before it finished; run again with the same pipeline and params to resume";
    default:
      return "failed: see warnings; run again with the same pipeline and params to retry what failed";
  }
}

type Notify = (progress: number, total: number, message: string) => void;

/** Progress notifications at most twice a second, when the client asked for them. */
function progressReporter(notify: Notify | undefined): RunReporter | undefined {
  if (!notify) return undefined;
  let last = 0;
  return {
    update(c) {
      const now = Date.now();
      if (now - last < 500) return;
      last = now;
      notify(c.callsDone, Math.max(c.callsPlanned, c.callsDone), `${c.creditsSpent} credits spent`);
    },
  };
}

async function runTool(
  ctx: ToolContext,
  args: {
    pipeline: string;
    params: Record<string, string | number | boolean | (string | number | boolean)[]>;
    maxCredits: number;
  },
  signal: AbortSignal,
  notify: Notify | undefined,
) {
  const pipeline = pipelineNamed(ctx, args.pipeline);
  const ceiling = runCeiling(args.maxCredits, ctx.maxCredits);
  const summary = await ctx.exclusive(() =>
    runPipelines({
      warehouse: ctx.warehouse,
      client: ctx.client,
      pipelines: [pipeline],
      params: paramLists(args.params),
      maxCredits: ceiling,
      concurrency: ctx.concurrency,
      prices: ctx.prices,
      trigger: "mcp",
      reporter: progressReporter(notify),
      signal: ctx.signal ? AbortSignal.any([ctx.signal, signal]) : signal,
    }),
  );
  const tables = [];
  for (const name of summary.tables) tables.push({ name, rows: await countRows(ctx.warehouse, name) });
  const budgets = await budgetStatus(ctx.warehouse);
  return {
    runId: summary.runId,
    resumed: summary.resumed,
    status: summary.status,
    exitState: exitState(summary, ceiling),
    credits: { spent: summary.counters.creditsSpent, ceiling },
    calls: {
      planned: summary.counters.callsPlanned,
      done: summary.counters.callsDone,
      fromStore: summary.counters.callsCached,
      failed: summary.counters.callsFailed,
    },
    rows: { written: summary.counters.rowsWritten, rejected: summary.counters.rowsRejected },
    tables,
    warnings: [
      ...summary.failures.slice(0, 20).map((f) => ({
        code: f.code,
        message: redact(
          `${f.pipeline}/${f.skill}: ${f.message}${f.ambiguous ? " (may have been billed)" : ""}`,
        ),
      })),
      ...(summary.failures.length > 20
        ? [{ code: "MORE", message: `${summary.failures.length - 20} more failures (runs tool)` }]
        : []),
      ...(summary.counters.rowsRejected
        ? [
            {
              code: "REJECTED_ROWS",
              message: `${summary.counters.rowsRejected} record(s) could not be typed and were not loaded`,
            },
          ]
        : []),
    ],
    budgets: budgets.map(({ period, limit, spent, remaining }) => ({ period, limit, spent, remaining })),
  };
}

export function registerRunTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "run",
    {
      title: "Run a pipeline",
      description: `Costs credits: calls the paid API and loads the pipeline's tables, spending at most maxCredits (required; this server allows at most ${ctx.maxCredits} per run) and never past the warehouse's daily and monthly budgets. Answers stored earlier cost 0. Call plan first to see the credits a run needs. Returns the run's status (succeeded, or stopped at the ceiling: resumable), credits spent, calls, rows loaded per table and warnings.`,
      inputSchema: {
        ...pipelineInput,
        maxCredits: z
          .number()
          .positive()
          .describe(`the most credits this run may spend (at most ${ctx.maxCredits})`),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args, extra) => {
      const token = extra._meta?.progressToken;
      const notify: Notify | undefined =
        token === undefined
          ? undefined
          : (progress, total, message) =>
              void extra
                .sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress, total, message },
                })
                .catch(() => {});
      return answer(() => runTool(ctx, args, extra.signal, notify));
    },
  );
}
