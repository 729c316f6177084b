import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { paramLists } from "../../engine/define/params.js";
import { countRows } from "../../engine/publish/read-table.js";
import {
  pushView,
  type RunReporter,
  type RunSummary,
  type StartedRun,
  startRun,
} from "../../engine/start/start-run.js";
import type { CeilingStatus } from "../../store/budget-status.js";
import { budgetStatus } from "../../store/budget-status.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";
import { pipelineInput, pipelineNamed } from "./pipelines.js";
import {
  budgetPeriodOutput,
  ESTIMATED_NOTE,
  runStatusOutput,
  serverCredits,
  serverCreditsLeftOutput,
} from "./status.js";

// Sums of prices like 0.1 must not refuse a run that fits exactly.
const EPSILON = 1e-9;

/**
 * The ceiling a run gets: the agent's own, refused when it asks for more than the server's total
 * (`--max-credits`, shared by every run the server starts) has left.
 */
function runCeiling(asked: number, total: CeilingStatus): number {
  const refuse = (message: string): never => {
    throw new ValidationError("run", [{ path: ["maxCredits"], message }]);
  };
  const { limit, remaining } = total;
  if (limit === null || remaining === null) return asked;
  const what = `--max-credits is the total of all the runs this server starts, for as long as it runs`;
  if (limit <= 0) refuse("this server only reads (--max-credits 0): it runs no pipelines");
  if (remaining <= EPSILON) {
    refuse(
      `this server has spent all ${limit} credits it may (${what}); it can only read now. A person can start it again with a new --max-credits`,
    );
  }
  if (asked > remaining + EPSILON) {
    refuse(
      `${asked} is more than this server has left: ${remaining} of its ${limit} credits (${what}); ask for ${remaining} or less (plan shows what a run needs)`,
    );
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
    case "warnings":
      return "finished with warnings: records were rejected (kept in skillsync_rejects); see warnings, fix the pipeline's mapping and run again (stored answers cost 0)";
    case "interrupted":
      return "interrupted before it finished; run again with the same pipeline and params to resume";
    default:
      return "failed: see warnings; run again with the same pipeline and params to retry what failed";
  }
}

/** What `runTool` answers; an absent member of a sheet push is left out of the JSON. */
const runOutput = {
  runId: z.string(),
  resumed: z.boolean().describe("true when it resumed an earlier run of the same pipeline and params"),
  status: runStatusOutput,
  exitState: z.string().describe("what the status means and what to do next"),
  credits: z.object({
    spent: z.number(),
    ceiling: z.number().describe("this run's maxCredits"),
    serverLeft: serverCreditsLeftOutput,
    estimated: z
      .boolean()
      .describe("spent is priced by the catalog's guesses, not the account's prices: the bill may differ"),
    note: z.string().optional(),
  }),
  calls: z.object({
    planned: z.number(),
    done: z.number(),
    fromStore: z.number(),
    failed: z.number(),
    rateLimited: z.number(),
  }),
  rows: z.object({ written: z.number(), rejected: z.number() }),
  tables: z
    .array(z.object({ name: z.string(), rows: z.number() }))
    .describe("rows in each table after the run"),
  sheetPushes: z.array(
    z.object({
      pipeline: z.string(),
      tab: z.string().optional(),
      rows: z.number().optional(),
      range: z.string().optional(),
      error: z.string().optional(),
    }),
  ),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  budgets: z.array(budgetPeriodOutput).describe("the warehouse's daily and monthly budgets after the run"),
};

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
  const { started, ceiling } = await ctx.exclusive(async () => {
    // Runs take turns, so what is left now is what this run may have. The server's total is also
    // a ceiling of the run's every call, held in the warehouse: it holds whatever happens here.
    const ceiling = runCeiling(args.maxCredits, await serverCredits(ctx));
    // The pipeline's `sheet:` output is pushed as every trigger pushes it, still within this run's turn.
    const started = await startRun({
      warehouse: ctx.warehouse,
      client: ctx.client,
      pipelines: [pipeline],
      params: paramLists(args.params),
      maxCredits: ceiling,
      ceilings: [ctx.total],
      concurrency: ctx.concurrency,
      prices: ctx.prices,
      allowUnpriced: ctx.allowUnpriced,
      trigger: "mcp",
      reporter: progressReporter(notify),
      signal: ctx.signal ? AbortSignal.any([ctx.signal, signal]) : signal,
      outputs: { sheets: ctx.sheets },
    });
    return { started, ceiling };
  });
  return runAnswer(ctx, started, ceiling);
}

/** The run tool's answer: the run, the rows its tables hold now, the budgets and the server's credits after it. */
async function runAnswer(ctx: ToolContext, { summary, outputs }: StartedRun, ceiling: number) {
  const tables = [];
  for (const name of summary.tables) tables.push({ name, rows: await countRows(ctx.warehouse, name) });
  const budgets = await budgetStatus(ctx.warehouse);
  const server = await serverCredits(ctx);
  const c = summary.counters;
  return {
    runId: summary.runId,
    resumed: summary.resumed,
    status: summary.status,
    exitState: exitState(summary, ceiling),
    credits: {
      spent: c.creditsSpent,
      ceiling,
      serverLeft: server.remaining,
      estimated: summary.creditsEstimated,
      ...(summary.creditsEstimated ? { note: ESTIMATED_NOTE } : {}),
    },
    calls: {
      planned: c.callsPlanned,
      done: c.callsDone,
      fromStore: c.callsCached,
      failed: c.callsFailed,
      rateLimited: c.rateLimited,
    },
    rows: { written: c.rowsWritten, rejected: c.rowsRejected },
    tables,
    sheetPushes: outputs.pushes.map(pushView),
    warnings: runWarnings(summary, outputs),
    budgets: budgets.map(({ period, limit, spent, remaining }) => ({ period, limit, spent, remaining })),
  };
}

/** Unpriced operations, the first 20 failures (redacted), the `sheet:` output's push and rejected rows. */
function runWarnings(
  summary: RunSummary,
  outputs: StartedRun["outputs"],
): { code: string; message: string }[] {
  return [
    ...summary.priceWarnings.map((message) => ({ code: "UNPRICED", message })),
    ...summary.failures.slice(0, 20).map((f) => ({
      code: f.code,
      message: redact(
        `${f.pipeline}/${f.skill}: ${f.message}${f.ambiguous ? " (may have been billed)" : ""}`,
      ),
    })),
    ...(summary.failures.length > 20
      ? [{ code: "MORE", message: `${summary.failures.length - 20} more failures (runs tool)` }]
      : []),
    ...(outputs.notConfigured
      ? [{ code: "SHEETS", message: `sheet output not pushed: ${outputs.notConfigured}` }]
      : outputs.pushes.flatMap((p) => (p.error ? [{ code: "SHEETS", message: redact(p.error) }] : []))),
    ...(summary.counters.rowsRejected
      ? [
          {
            code: "REJECTED_ROWS",
            message: `${summary.counters.rowsRejected} record(s) could not be typed and were not loaded`,
          },
        ]
      : []),
  ];
}

export function registerRunTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "run",
    {
      title: "Run a pipeline",
      description: `Costs credits: calls the paid API and loads the pipeline's tables, spending at most maxCredits (required) and never past what this server has left of its total of ${ctx.maxCredits} credits (shared by all the runs started through it, for as long as it runs; budget shows what is left) or the warehouse's daily and monthly budgets. Answers stored earlier cost 0. Call plan first to see the credits a run needs. Returns the run's status (succeeded, or stopped at the ceiling: resumable), credits spent and what the server has left, calls, rows loaded per table and warnings.`,
      inputSchema: {
        ...pipelineInput,
        maxCredits: z
          .number()
          .positive()
          .describe(
            `the most credits this run may spend: at most what this server has left of its ${ctx.maxCredits} (budget shows it)`,
          ),
      },
      outputSchema: runOutput,
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
