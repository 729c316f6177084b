import type { Ceiling } from "../../store/budget.js";
import { settleAnswered } from "../../store/calls.js";
import { inputScope, resolveInput, staticInput } from "../define/inputs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { unusualIdentifiers } from "../extract/identifiers.js";
import { type CallFactory, type CallPlan, callFactory, splitBatchValues } from "../extract/planned-calls.js";
import { dropOtherRuns } from "../load/write-rows.js";
import { runReportCalls } from "../reports/index.js";
import { type CallsToMake, openCallRun } from "./call-run.js";
import { itemsLoaded, partitionFresh, reuseFreshItems } from "./item-reuse.js";
import { endLoad } from "./load-ids.js";
import { callWorker } from "./one-call.js";
import { plannedCallsText } from "./plan.js";
import type { Compiled } from "./prepare.js";
import { endQuality, type QualitySeen, qualityRule } from "./quality.js";
import type { RunEnv, RunSession } from "./session.js";

// Where the stages beside this one have always found them.
export type { CallProgress } from "./call-run.js";
export type { RunEnv } from "./session.js";

/** A pipeline's first calls, formed lazily, and the items a batched one takes from the store. */
export interface PipelineCalls {
  factory: CallFactory;
  calls: CallPlan;
  items: { toAsk: string[] | undefined; fresh: string[]; own: string[] };
}

/** Reads a pipeline's inputs and plans its first calls (counted as planned), sending nothing. */
export async function planPipelineCalls(s: RunSession, env: RunEnv, c: Compiled): Promise<PipelineCalls> {
  const p = c.pipeline;
  // Values from params, lists or files are what the preflight read and validated; SQL and sheet
  // ones are read, and validated, now.
  const known = staticInput(p, c.params);
  const ctx = { warehouse: s.warehouse, params: c.params, sheet: env.sheet, freshnessMs: c.freshnessMs };
  const values = known === "dynamic" ? await resolveInput(p, ctx) : known;
  const factory = callFactory(p, c.params, env.prices, env.client.prepare.bind(env.client));
  const items = await freshItemsFirst(s, c, factory, values);
  const calls = factory.initial(items.toAsk, known !== "dynamic");
  // Static values were checked, and warned of, by the preflight.
  if (known === "dynamic") s.warnings.push(...unusualIdentifiers(p, items.toAsk));
  s.counters.callsPlanned += calls.count;
  const all = calls.count === 0 && values?.length === 0 ? await inputScope(p, ctx) : undefined;
  if (all) {
    s.notes.push(
      `${p.name}: 0 calls: all ${all} inputs are fresh (asked within its freshness of ${p.freshness}); --refresh asks again`,
    );
  }
  s.report(
    `${p.name}: ${plannedCallsText(calls.count, factory.maxPages)}${items.fresh.length ? `; ${items.fresh.length} item(s) fresh in the store` : ""}`,
  );
  return { factory, calls, items };
}

/** The run's ceilings, and the pipeline's own `maxCredits` under this invocation. */
export function pipelineCeilings(s: RunSession, p: LoadedPipeline): Ceiling[] {
  if (!p.maxCredits) return s.ceilings;
  return [
    ...s.ceilings,
    { scope: `${s.invocation}:${p.name}`, limit: p.maxCredits, label: `maxCredits of pipeline ${p.name}` },
  ];
}

/** One pipeline of a run: its inputs read, its calls planned, made under its ceilings and loaded. */
export async function runPipeline(s: RunSession, env: RunEnv, c: Compiled): Promise<void> {
  const { factory, calls, items } = await planPipelineCalls(s, env, c);
  const ceilings = pipelineCeilings(s, c.pipeline);
  if (c.pipeline.report) {
    const { runId, counters, failures, state, report, signal } = s;
    const run = { runId, counters, failures, state, report, signal, calls: [...calls], ceilings };
    await runReportCalls({ ...run, ...c, prices: env.prices, warehouse: s.warehouse, client: env.client });
    return endLoad(s, c.pipeline);
  }
  const outcome = await runCalls({ s, env, c, factory, calls, ceilings, items });
  await finishPipeline(s, env, c, outcome);
}

/** How a pipeline's calls went: what their answers showed, and whether every call got its answer loaded. */
export interface CallsOutcome {
  seen: QualitySeen;
  /** No stop and no failure: a `replace` pipeline may drop the rows of earlier runs. */
  complete: boolean;
}

/** A pipeline's end: its quality warnings, and a complete `replace` pipeline's rows of earlier runs dropped. */
export async function finishPipeline(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  o: CallsOutcome,
): Promise<void> {
  endQuality(s, c.pipeline, qualityRule(env, c.pipeline), o.seen);
  await endLoad(s, c.pipeline);
  if (c.mapping.mode === "replace" && o.complete && !s.state.stop) {
    await s.warehouse.db.transaction().execute(async (trx) => {
      for (const t of [c.mapping.table, ...c.mapping.children]) await dropOtherRuns(trx, t.name, s.runId);
    });
  }
}

/**
 * A batched pipeline whose answers split per item asks only for the items the store has no fresh
 * part of (nor this run stored before it was interrupted): the rest are loaded from their parts.
 */
async function freshItemsFirst(
  s: RunSession,
  c: Compiled,
  factory: CallFactory,
  values: string[] | undefined,
): Promise<{ toAsk: string[] | undefined; fresh: string[]; own: string[] }> {
  const split = factory.split;
  if (!split || !values || !(c.freshnessMs > 0 || s.resumed)) return { toAsk: values, fresh: [], own: [] };
  const { fresh, own, rest } = await partitionFresh(s.warehouse, factory, split, splitBatchValues(values), {
    freshnessMs: c.freshnessMs,
    runId: s.runId,
  });
  if (!own.length) return { toAsk: rest, fresh, own };
  // Own parts the interrupted run had loaded are done: only the others are loaded now.
  const loaded = await itemsLoaded(s.warehouse, split, { runId: s.runId, pipeline: c.pipeline.name });
  return { toAsk: rest, fresh, own: own.filter((item) => !loaded.has(item)) };
}

/**
 * A pipeline's calls through a fixed set of workers (one-call.ts: each call's route); answers load
 * in groups behind them. The pipeline's end (finishPipeline) is the caller's: a run spread over
 * workers adds up its shares first.
 */
export async function runCalls(o: CallsToMake): Promise<CallsOutcome> {
  const run = await openCallRun(o);
  await reuseFreshItems(run, o.items ?? { fresh: [], own: [] });
  // A worker that fails stops the others from taking calls; the calls they have in flight finish
  // and are recorded (and loaded) before the error ends the run. Promise.all would leave them
  // sending calls for a run already declared failed.
  const ended = await Promise.allSettled(
    Array.from({ length: run.width }, () =>
      callWorker(run).catch((err: unknown) => {
        run.pipelineStop.stop = true;
        throw err;
      }),
    ),
  );
  await run.answers.drain();
  const crashed = ended.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (crashed) throw crashed.reason;
  const complete = !run.state.stop && !run.pipelineStop.stop && run.pipelineStop.failed === 0;
  // A resumed batched pipeline loaded an earlier part's kept batches through their items' parts
  // (`items.own`): their ledger rows say so now. Only then: a worker's batch loads its own calls,
  // and settling every kept call of the run would mark another batch's (kept by a worker that
  // died, not loaded yet) loaded, so that the batch's re-delivery would skip its load.
  if (complete && run.itemRun && run.resumed && o.items?.own.length)
    await settleAnswered(run.warehouse.db, run.runId, run.pipeline.name);
  return { seen: run.quality.seen(), complete };
}
