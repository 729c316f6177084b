import { z } from "zod";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { ReadMeasure } from "../connectors/warehouse/read-cap.js";
import { fromZodIssues, ValidationError } from "../core/errors.js";
import { paramLists, paramsRequestSchema, resolveParams } from "../engine/define/params.js";
import type { LoadedPipeline } from "../engine/define/pipeline-file.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { Prepare } from "../engine/extract/planned-calls.js";
import { ANSWER_BOUNDS, truncationOf } from "../engine/publish/answer-bounds.js";
import {
  countRows,
  readRows,
  stableOrder,
  tableColumns,
  tableSummaries,
  typedValue,
  userTables,
} from "../engine/publish/read-table.js";
import {
  pipelineView,
  recentWarehouseRuns,
  warehouseRunView,
} from "../engine/publish/run-and-pipeline-views.js";
import { planPipelines } from "../engine/run/plan.js";
import { preflight } from "../engine/run/preflight.js";
import { budgetEstimated, checkRunPricing } from "../engine/run/unpriced.js";
import type { ColumnType } from "../schema/table.js";
import { budgetStatus } from "../store/budget-status.js";
import { errorReply, type Reply, reply } from "./http.js";
import { jobView } from "./job-view.js";
import type { RunQueue } from "./queue.js";

/** The largest page of rows a GET may ask for (tables and changes alike). */
const MAX_PAGE = 5000;
export interface RouteContext {
  warehouse: Warehouse;
  pipelines: Map<string, LoadedPipeline>;
  queue: RunQueue;
  /** The largest maxCredits a run may ask for. */
  maxCredits: number;
  /** Column types the pipelines declare, so SQLite's 0/1 and JSON text come out typed. */
  columnTypes: Map<string, Record<string, ColumnType>>;
  /** Validates a request as the client would before sending it (the run's own check, done before queuing). */
  prepare: Prepare;
  /** The price table runs reserve with (preflight prices with the same). */
  prices: PriceTable;
  /** `--allow-unpriced`: see ServerOptions. */
  allowUnpriced: boolean;
  /** Told when a sheet schedule is made or deleted (this process's scheduler looks at once). */
  schedulesChanged?: (() => void) | undefined;
  /** Google Sheets is configured (`sheets` of ServerOptions): a sheet schedule can be written. */
  sheets: boolean;
}

export const runRequestSchema = z.strictObject({
  pipeline: z.string().min(1).max(100),
  params: paramsRequestSchema,
  maxCredits: z.number().positive().optional(),
});

export const pageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(1000),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  columns: z.string().max(10_000).optional(),
  /** Ignored: lets a client make two otherwise identical requests in one second (each signature is single-use). */
  nonce: z.string().max(64).optional(),
});

export function parse<T>(schema: z.ZodType<T>, value: unknown, source: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new ValidationError(source, fromZodIssues(r.error.issues));
  return r.data;
}

/** A request's JSON body, or the 400 Reply that says it is not JSON. */
export function jsonBody(body: string): { json: unknown } | Reply {
  try {
    return { json: JSON.parse(body) };
  } catch {
    return errorReply(400, "BAD_JSON", "the body is not JSON");
  }
}

/** A POST /runs (or /plan) body checked: its pipeline, params and ceiling; a Reply when it is not JSON. */
function runRequest(ctx: RouteContext, body: string) {
  const parsed = jsonBody(body);
  if ("status" in parsed) return parsed;
  return checkRun(ctx, parse(runRequestSchema, parsed.json, "run request"), "run request");
}

/**
 * A run's pipeline, params and ceiling checked as the run would check them, before anything is
 * queued or stored: a bad one is a 400 naming the member, never a failed run later.
 */
export function checkRun(ctx: RouteContext, req: z.infer<typeof runRequestSchema>, source: string) {
  const pipeline = ctx.pipelines.get(req.pipeline);
  if (!pipeline) {
    throw new ValidationError(source, [
      { path: ["pipeline"], message: `no pipeline "${req.pipeline}" (see GET /pipelines)` },
    ]);
  }
  const maxCredits = req.maxCredits ?? ctx.maxCredits;
  if (maxCredits > ctx.maxCredits) {
    throw new ValidationError(source, [
      {
        path: ["maxCredits"],
        message: `${maxCredits} is above the server's ceiling of ${ctx.maxCredits} credits`,
      },
    ]);
  }
  const params = paramLists(req.params);
  // The requests the run would make from these params are checked now: a bad one is a 400, not a failed run.
  preflight([pipeline], [resolveParams(pipeline.params, params, "params")], ctx.prices, ctx.prepare);
  return { pipeline, params, maxCredits };
}

/** POST /runs: everything is checked before the run is queued; the answer comes at once. */
export async function postRun(ctx: RouteContext, body: string): Promise<Reply> {
  const req = runRequest(ctx, body);
  if ("status" in req) return req;
  // A ceiling that cannot bind is a 400 now, as `run` exits 2, not a queued run that fails later.
  await checkRunPricing(ctx.warehouse, {
    pipelines: [req.pipeline],
    prices: ctx.prices,
    maxCredits: req.maxCredits,
    allowUnpriced: ctx.allowUnpriced,
  });
  const job = ctx.queue.submit(req.pipeline, req.params, req.maxCredits);
  return reply(202, {
    runId: job.id,
    status: job.status,
    pipeline: job.pipeline,
    maxCredits: req.maxCredits,
  });
}

/**
 * POST /plan: what POST /runs with the same body would cost — calls, calls the store answers,
 * credits for the first pages and at most — and whether its ceiling is below that "at most".
 * Sends nothing and spends nothing (engine/run/plan.ts, as `skillsync plan` and MCP `plan`).
 */
export async function postPlan(ctx: RouteContext, body: string): Promise<Reply> {
  const req = runRequest(ctx, body);
  if ("status" in req) return req;
  const plan = await planPipelines({
    warehouse: ctx.warehouse,
    pipelines: [req.pipeline],
    params: req.params,
    prices: ctx.prices,
    prepare: ctx.prepare,
  });
  return reply(200, {
    ...plan,
    maxCredits: req.maxCredits,
    ceilingBelowAtMost: req.maxCredits < plan.creditsAtMost,
    note: "nothing was sent",
  });
}

export async function getRun(ctx: RouteContext, id: string): Promise<Reply> {
  const job = ctx.queue.get(id);
  if (job) return reply(200, jobView(job));
  const stored = /^r\d{14}-[0-9a-f]{8}$/.test(id) ? await warehouseRunView(ctx.warehouse, id) : undefined;
  return stored ? reply(200, stored) : errorReply(404, "UNKNOWN_RUN", `no run "${id.slice(0, 80)}"`);
}

/** GET /runs: the server's queue, and the warehouse's latest runs (scheduled and manual ones too). */
export async function listRuns(ctx: RouteContext): Promise<Reply> {
  return reply(200, {
    runs: ctx.queue.list().slice(0, 200).map(jobView),
    ...ctx.queue.counts(),
    recent: await recentWarehouseRuns(ctx.warehouse),
  });
}

export function listPipelines(ctx: RouteContext): Reply {
  return reply(200, { pipelines: [...ctx.pipelines.values()].map(pipelineView) });
}

export async function listTablesRoute(ctx: RouteContext): Promise<Reply> {
  const tables = (await tableSummaries(ctx.warehouse, ctx.columnTypes)).map((t) => ({
    name: t.name,
    rows: t.rows,
    columns: t.columns.map((c) => ({ name: c.name, type: c.type ?? null })),
    ...(t.history ? { history: true } : {}),
  }));
  return reply(200, { tables });
}

/** GET /tables/:name: the name and the columns must be the warehouse's own; no SQL is built from the URL. */
export async function readTable(ctx: RouteContext, name: string, query: URLSearchParams): Promise<Reply> {
  const w = ctx.warehouse;
  const tables = await userTables(w);
  if (!tables.includes(name))
    return errorReply(404, "UNKNOWN_TABLE", `no table "${name.slice(0, 80)}" (see GET /tables)`);
  const page = parse(pageSchema, Object.fromEntries(query), "query");
  const info = await tableColumns(w, name, ctx.columnTypes);
  const known = new Map(info.map((c) => [c.name, c]));
  const asked = page.columns
    ?.split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  const unknown = (asked ?? []).filter((c) => !known.has(c));
  if (unknown.length) {
    throw new ValidationError("query", [
      {
        path: ["columns"],
        message: `unknown column(s) ${unknown.map((c) => `"${c.slice(0, 64)}"`).join(", ")}; the table has ${[...known.keys()].join(", ")}`,
      },
    ]);
  }
  const columns = asked?.length ? [...new Set(asked)] : info.map((c) => c.name);
  let measure: ReadMeasure | undefined;
  // A page stops at the answer's bounds (answer-bounds.ts): nextOffset goes on from its last row.
  const rows = await readRows(w, name, {
    columns,
    orderBy: await stableOrder(w, name, info),
    limit: page.limit,
    offset: page.offset,
    ...ANSWER_BOUNDS,
    onMeasure: (m) => (measure = m),
  });
  const total = await countRows(w, name);
  const next = page.offset + rows.length;
  const cut = truncationOf(measure);
  return reply(200, {
    table: name,
    columns: columns.map((c) => ({ name: c, type: known.get(c)?.type ?? null })),
    offset: page.offset,
    limit: page.limit,
    total,
    nextOffset: next < total ? next : null,
    truncated: cut.truncatedBy === "bytes",
    ...(cut.truncatedBy === "bytes" ? { truncatedBy: "bytes" } : {}),
    ...(cut.cellsCut ? { cellsCut: cut.cellsCut } : {}),
    rows: rows.map((r) => Object.fromEntries(columns.map((c) => [c, typedValue(r[c], known.get(c)?.type)]))),
  });
}

export async function budget(ctx: RouteContext): Promise<Reply> {
  const [daily, monthly] = (await budgetStatus(ctx.warehouse)).map(({ scope, limit, spent, remaining }) => ({
    scope,
    limit,
    spent,
    remaining,
  }));
  return reply(200, {
    daily,
    monthly,
    maxCreditsPerRun: ctx.maxCredits,
    queue: ctx.queue.counts(),
    // Reserved at the prices in force: the catalog's guesses unless a price file covers them.
    estimated: budgetEstimated(ctx.prices, [...ctx.pipelines.values()]),
  });
}
