import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { paramLists, paramsRequestSchema } from "../../engine/define/params.js";
import type { LoadedPipeline } from "../../engine/define/pipeline-file.js";
import { DEFAULT_PRICE } from "../../engine/define/prices.js";
import { compileMapping } from "../../engine/normalize/mapping.js";
import { pipelineView } from "../../engine/publish/run-and-pipeline-views.js";
import { planPipelines } from "../../engine/run/plan.js";
import { paramDefSchema } from "../../schema/pipeline.js";
import type { ToolContext } from "../context.js";
import { answer } from "../reply.js";
import { serverCredits, serverCreditsLeftOutput } from "./status.js";

/** The pipeline an agent named, or a refusal that lists the ones it may name. */
export function pipelineNamed(ctx: ToolContext, name: string): LoadedPipeline {
  const p = ctx.byName.get(name);
  if (p) return p;
  throw new ValidationError("pipeline", [
    { path: ["pipeline"], message: `no pipeline "${name.slice(0, 100)}"; call list_pipelines for the names` },
  ]);
}

function pipelineEntry(ctx: ToolContext, p: LoadedPipeline) {
  const m = compileMapping(p.records);
  const price = ctx.prices.get(p.skill) ?? DEFAULT_PRICE;
  return {
    ...pipelineView(p),
    tables: [m.table.name, ...m.children.map((c) => c.name)],
    estimatedCredits:
      "perItem" in price
        ? { perItem: price.perItem, note: "per identifier in a call's batch (up to 100 a call)" }
        : { perCall: price.perCall },
  };
}

/** One entry of list_pipelines: `pipelineEntry`, params as pipeline files declare them (defaults filled). */
const pipelineEntryOutput = z.object({
  name: z.string(),
  description: z.string().nullable(),
  skill: z.string(),
  table: z.string().describe("the pipeline's records table"),
  maxCredits: z.number().nullable().describe("the pipeline file's own ceiling per run (null: none)"),
  params: z.record(z.string(), paramDefSchema),
  tables: z.array(z.string()).describe("every table a run loads: the records table, then its child tables"),
  estimatedCredits: z.union([
    z.object({ perItem: z.number(), note: z.string() }),
    z.object({ perCall: z.number() }),
  ]),
});

const listPipelinesOutput = {
  pipelines: z.array(pipelineEntryOutput),
  serverMaxCredits: z.number().describe("this server's total (--max-credits) for all its runs"),
  serverCreditsLeft: serverCreditsLeftOutput,
};

/** A pipeline's plan (engine/run/plan.ts `PipelinePlan`); an undefined member is left out of the JSON. */
const pipelinePlanOutput = z.object({
  pipeline: z.string(),
  skill: z.string(),
  calls: z.number().describe("first-page calls"),
  fromStore: z.number().describe("of those, answered from stored responses for 0 credits"),
  morePagesAtMost: z.number(),
  maxPages: z.number(),
  credits: z.number().describe("credits of the first-page calls to send"),
  creditsAtMost: z.number().describe("credits if every page up to maxPages is needed"),
  inputs: z.number().optional(),
  dependsOn: z
    .object({
      dependsOn: z.array(z.string()),
      inputsAtMost: z.number().nullable(),
      callsAtMost: z.number().nullable(),
      creditsAtMost: z.number().nullable(),
    })
    .optional(),
  rowsAtMost: z.number().nullable(),
  sample: z.array(z.record(z.string(), z.unknown())).describe("a few of the requests, as they would be sent"),
  items: z.object({ asked: z.number(), fromStore: z.number(), toPay: z.number() }).optional(),
  windows: z
    .array(
      z.object({
        start: z.string(),
        end: z.string(),
        ask: z.enum(["new", "again", "done"]),
        calls: z.number(),
        fromStore: z.number(),
        credits: z.number(),
      }),
    )
    .optional(),
});

const planOutput = {
  pipelines: z.array(pipelinePlanOutput),
  credits: z.number(),
  creditsAtMost: z.number(),
  unbounded: z
    .array(z.string())
    .describe("pipelines whose bound is unknown until the ones feeding them have run"),
  serverMaxCredits: z.number(),
  serverCreditsLeft: serverCreditsLeftOutput,
  note: z.string(),
};

export const pipelineInput = {
  pipeline: z.string().min(1).max(100).describe("a name from list_pipelines"),
  params: paramsRequestSchema.describe(
    "the pipeline's params by name: a value, or a list for a repeatable one",
  ),
};

export function registerPipelineTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "list_pipelines",
    {
      title: "List pipelines",
      description:
        "Free: sends nothing. The pipelines this server may run: their params, the tables they load and the estimated credits per API call; and the server's credit total and what is left of it.",
      outputSchema: listPipelinesOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      answer(async () => ({
        pipelines: ctx.pipelines.map((p) => pipelineEntry(ctx, p)),
        serverMaxCredits: ctx.maxCredits,
        serverCreditsLeft: (await serverCredits(ctx)).remaining,
      })),
  );

  server.registerTool(
    "plan",
    {
      title: "Plan a run",
      description:
        "Free: sends nothing and spends no credits. The calls a run of the pipeline with these params would make, how many the warehouse already holds (0 credits), and the credits for the first pages and at most.",
      inputSchema: pipelineInput,
      outputSchema: planOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(async () => {
        const pipeline = pipelineNamed(ctx, args.pipeline);
        const plan = await planPipelines({
          warehouse: ctx.warehouse,
          pipelines: [pipeline],
          params: paramLists(args.params),
          prices: ctx.prices,
          prepare: ctx.client.prepare.bind(ctx.client),
        });
        return {
          ...plan,
          serverMaxCredits: ctx.maxCredits,
          serverCreditsLeft: (await serverCredits(ctx)).remaining,
          note: "nothing was sent",
        };
      }),
  );
}
