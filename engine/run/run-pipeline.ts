import { CreditCeilingError } from "../../core/errors.js";
import { waiters } from "../../core/waiters.js";
import type { Ceiling } from "../../store/budget.js";
import { answeredCalls, type CallRecord, settleAnswered } from "../../store/calls.js";
import { finishLoad } from "../../store/loads.js";
import { isLoaded } from "../../store/part-loads.js";
import { inputScope, resolveInput, type SheetReader, staticInput } from "../define/inputs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { PriceTable } from "../define/prices.js";
import { unusualIdentifiers } from "../extract/identifiers.js";
import { answerKeeper } from "../extract/keep-answers.js";
import { paidCall, succeeded } from "../extract/paid-call.js";
import {
  type CallFactory,
  type CallPlan,
  callFactory,
  type PlannedCall,
  splitBatchValues,
} from "../extract/planned-calls.js";
import { type Reserved, reservations } from "../extract/reservations.js";
import type { SkillCaller } from "../extract/skill-caller.js";
import { answerQueue } from "../load/answer-queue.js";
import { type Answer, loadAnswers } from "../load/load-response.js";
import { dropOtherRuns } from "../load/write-rows.js";
import { runReportCalls } from "../reports/index.js";
import {
  type ItemRun,
  itemsLoaded,
  loadFreshItems,
  partitionFresh,
  type TakenItems,
  takeItems,
} from "./item-reuse.js";
import { loadOf } from "./loads.js";
import { plannedCallsText } from "./plan.js";
import type { Compiled } from "./prepare.js";
import {
  endQuality,
  type PipelineQuality,
  pipelineQuality,
  type QualityRule,
  type QualitySeen,
} from "./quality.js";
import { reserveOrShare } from "./reserve-or-share.js";
import type { RunSession } from "./session.js";

/** What a run's pipelines share besides the session: the client, prices, sheet reader and width. */
export interface RunEnv {
  client: SkillCaller;
  prices: PriceTable;
  sheet: SheetReader | undefined;
  concurrency: number;
  /** `--strict`: warnings about what was loaded fail the run (as a pipeline's `strict: true`). */
  strict?: boolean | undefined;
  /** `--allow-rejects`: rejected records leave the run `succeeded` (as a pipeline's `rejects: allow`). */
  allowRejects?: boolean | undefined;
  /** `--refresh`: date windows recorded done are asked again too (engine/run/windows/run-windowed.ts). */
  refresh?: boolean | undefined;
}

/** Told how a pipeline's calls go: a windowed pipeline records a window once all its calls loaded. */
export interface CallProgress {
  /** A next page of a call was planned. */
  paged(next: PlannedCall): void;
  /** These calls' answers are loaded: now, or by an earlier part of the run. */
  loaded(calls: PlannedCall[]): Promise<void>;
}

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
    return finishLoad(s.warehouse, await loadOf(s, c.pipeline.name));
  }
  const outcome = await runCalls(s, env, c, factory, calls, ceilings, items);
  await finishPipeline(s, env, c, outcome);
}

/** How a pipeline's calls went: what their answers showed, and whether every call got its answer loaded. */
export interface CallsOutcome {
  seen: QualitySeen;
  /** No stop and no failure: a `replace` pipeline may drop the rows of earlier runs. */
  complete: boolean;
}

/** The run's flags and the pipeline file together decide how loud its quality warnings are. */
function qualityRule(env: RunEnv, p: LoadedPipeline): QualityRule {
  return {
    strict: env.strict === true || p.strict,
    allowRejects: env.allowRejects === true || p.rejects === "allow",
  };
}

/** A pipeline's end: its quality warnings, and a complete `replace` pipeline's rows of earlier runs dropped. */
export async function finishPipeline(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  o: CallsOutcome,
): Promise<void> {
  endQuality(s, c.pipeline, qualityRule(env, c.pipeline), o.seen);
  await finishLoad(s.warehouse, await loadOf(s, c.pipeline.name));
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
 * A pipeline's calls through a fixed set of workers; answers load in groups behind them. The
 * pipeline's end (finishPipeline) is the caller's: a run spread over workers adds up its shares first.
 */
export async function runCalls(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  factory: CallFactory,
  calls: CallPlan,
  ceilings: Ceiling[],
  freshItems: { fresh: string[]; own: string[] } = { fresh: [], own: [] },
  progress?: CallProgress,
): Promise<CallsOutcome> {
  const { warehouse: w, runId, counters, state, report } = s;
  const p = c.pipeline;
  const pipelineState = { stop: false, failed: 0 };
  const quality = pipelineQuality(s, p, qualityRule(env, p));
  const reserving = reservations(w, ceilings, { freshnessMs: c.freshnessMs, runId });
  const keeper = answerKeeper(w, p, runId);
  // Calls an earlier part of this run paid for and kept, but never loaded: loaded now, not paid again.
  const kept = s.resumed ? await answeredCalls(w.db, runId, p.name) : new Map<string, number>();
  const target = { ...c, loadId: await loadOf(s, p.name) };
  const width = Math.max(1, Math.min(env.concurrency, p.concurrency ?? env.concurrency));
  const answers = answerQueue<Answer>({
    write: async (group) => {
      const along = s.alongLoad;
      const r = await loadAnswers(
        w,
        target,
        runId,
        group,
        along && ((db, l) => along(db, { calls: group.length, rows: l.rows, rejected: l.rejected })),
      );
      counters.rowsWritten += r.rows;
      counters.rowsRejected += r.rejected;
      counters.callsDone += group.length;
      quality.loaded(group, r);
      report();
      await progress?.loaded(group.map((a) => a.call));
    },
    // Answers wait here, not calls: a slow database pauses the workers before memory grows.
    maxPending: Math.max(8, 2 * width),
    // Short groups: a group's rows are written in one go, and a call waiting to be reserved waits for it.
    maxGroup: 16,
    onError: () => {
      pipelineState.stop = true;
    },
    yieldTo: reserving.idle,
  });
  // A fixed set of workers pulls calls one at a time, so a run of 100,000 calls never holds
  // 100,000 pending tasks: planned calls are formed as they are taken, next pages queue behind them.
  const planned = calls[Symbol.iterator]();
  const pages: PlannedCall[] = [];
  const itemRun = factory.split
    ? { pipeline: p.name, factory, split: factory.split, size: p.batch?.size ?? 100 }
    : undefined;
  if (itemRun) {
    // Parts gone since planning (a pruned store) are asked for after all.
    const missing = await loadFreshItems(s, itemRun, freshItems, (a) => answers.push(a));
    for (let i = 0; i < missing.length; i += itemRun.size) {
      counters.callsPlanned++;
      pages.push(factory.forItems(missing.slice(i, i + itemRun.size)));
    }
  }
  let active = 0;
  const waiting = waiters();
  const worker = async (): Promise<void> => {
    for (;;) {
      // Stopped (ceiling, refusal, interrupt, a worker's failure): the calls left are not even formed.
      if (state.stop || pipelineState.stop) return;
      const call = pages.shift() ?? nextPlanned();
      if (!call) {
        // Nothing to take now, but a call in flight may still bring a next page.
        if (active === 0) return;
        await waiting.wait();
        continue;
      }
      active++;
      try {
        const got = await execute(
          {
            s,
            env,
            c,
            ceilings,
            reserve: reserving.reserve,
            ps: pipelineState,
            quality,
            itemRun,
            keeper,
            kept,
          },
          call,
        );
        if (got && "taken" in got) {
          // Some of the batch's items came from the store or another run: the rest go as a smaller batch.
          for (const a of got.taken.answers) await answers.push(a);
          if (got.taken.retry) {
            pages.push(got.taken.retry);
            waiting.wakeAll();
          }
        } else if (got) {
          const next = factory.next(call, got.data);
          if (next) {
            counters.callsPlanned++;
            counters.pagesFound++;
            progress?.paged(next);
            pages.push(next);
            waiting.wakeAll();
          }
          // The answer loads in the background: this worker's slot is free for the next call.
          if (got.answer) await answers.push(got.answer);
          else await progress?.loaded([call]);
        }
      } finally {
        active--;
        waiting.wakeAll();
      }
    }
  };
  // A finished generator keeps answering done.
  function nextPlanned(): PlannedCall | undefined {
    const r = planned.next();
    return r.done ? undefined : r.value;
  }
  // A worker that fails stops the others from taking calls; the calls they have in flight finish
  // and are recorded (and loaded) before the error ends the run. Promise.all would leave them
  // sending calls for a run already declared failed.
  const ended = await Promise.allSettled(
    Array.from({ length: width }, () =>
      worker().catch((err: unknown) => {
        pipelineState.stop = true;
        throw err;
      }),
    ),
  );
  await answers.drain();
  const crashed = ended.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (crashed) throw crashed.reason;
  const complete = !state.stop && !pipelineState.stop && pipelineState.failed === 0;
  // A resumed batched pipeline loads an earlier part's kept batches through their items' parts.
  if (complete && itemRun && s.resumed) await settleAnswered(w.db, runId, p.name);
  return { seen: quality.seen(), complete };
}

/** What one call of a pipeline's run needs besides the call: the run, the pipeline and its helpers. */
interface CallContext {
  s: RunSession;
  env: RunEnv;
  c: Compiled;
  ceilings: Ceiling[];
  reserve: (record: CallRecord, items?: string[]) => Promise<Reserved>;
  ps: { stop: boolean; failed: number };
  quality: PipelineQuality;
  itemRun: ItemRun | undefined;
  keeper: ReturnType<typeof answerKeeper>;
  /** An earlier part's paid and kept answers not yet loaded: request hash → ledger id. */
  kept: Map<string, number>;
}

/**
 * One call: from the store when a fresh answer is there (free), from another run that has the
 * same request in flight (free), else paid — and its answer kept the moment it arrives. Returns the
 * answer to load, or undefined when there is none (stopped, refused, failed, loaded by an earlier
 * attempt).
 */
async function execute(
  x: CallContext,
  call: PlannedCall,
): Promise<{ data: unknown; answer: Answer | undefined } | { taken: TakenItems } | undefined> {
  const { s, env, c, ps } = x;
  const { warehouse: w, runId, resumed, counters, failures, state, report } = s;
  const p = c.pipeline;
  // The store is looked at and, when it has no fresh answer and no other run has the same
  // request in flight (nor, for a batch split per item, any of its items), the call reserved: in
  // one transaction shared with the calls asking at the same moment.
  const record = { runId, pipeline: p.name, skill: p.skill, requestHash: call.hash, credits: call.credits };
  const items = x.itemRun && c.freshnessMs > 0 ? call.parts?.hashes : undefined;
  const first = await reserveOrShare(s, record, x.reserve, ps, items);
  if ("skipped" in first) return undefined;
  if ("itemsTaken" in first) {
    const taken = await takeItems(s, x.itemRun!, call, first.itemsTaken, ps);
    return taken ? { taken } : undefined;
  }
  if ("shared" in first) {
    // Another run's call of the same request, answered while this one waited: loaded as ours, free.
    counters.callsShared++;
    const { data, receivedAt } = first.shared;
    return withRecords(x, { call, data, receivedAt, ledger: { kind: "shared" } });
  }
  if ("stored" in first) {
    const { stored } = first;
    const keptId = x.kept.get(call.hash);
    if (keptId !== undefined) {
      // Paid by an earlier part of this run and kept, its load cut short: loaded now, as the paid
      // call it was (its credits were carried with the run).
      x.kept.delete(call.hash);
      const answer: Answer = {
        call,
        data: stored.data,
        receivedAt: stored.receivedAt,
        ledger: { kind: "paid", callId: keptId },
      };
      return withRecords(x, answer);
    }
    // Whether the crashed attempt loaded it matters only for an answer found in the store: a
    // resumed run asks for these, not every call.
    if (resumed && (await isLoaded(w, runId, p.name, call.hash))) {
      counters.callsDone++;
      report();
      // Loaded by an earlier part (counted there, as paid or from store): nothing to write, but
      // its next page still follows.
      return { data: stored.data, answer: undefined };
    }
    counters.callsCached++;
    return withRecords(x, {
      call,
      data: stored.data,
      receivedAt: stored.receivedAt,
      ledger: { kind: "cached" },
    });
  }

  const out = await paidCall(
    {
      warehouse: w,
      client: env.client,
      runId,
      pipeline: p,
      ceilings: x.ceilings,
      counters,
      failures,
      state,
      pipelineStop: ps,
      report,
      reserve: () => ("error" in first ? Promise.reject(first.error) : Promise.resolve(first.callId)),
      rateLimit: env.prices.get(p.skill)?.rateLimit,
    },
    { skill: p.skill, body: call.body, hash: call.hash, credits: call.credits },
  );
  if (!out.ok) {
    if (!(out.error instanceof CreditCeilingError)) ps.failed++;
    return undefined;
  }
  const { callId, result, receivedAt } = out;
  const data = result.data ?? {};
  // A null `data` is kept as {} (what is loaded): the text as received would say null.
  const text = result.data === null ? null : (result.text ?? null);
  await x.keeper.keep({
    call,
    data,
    text,
    receivedAt,
    callId,
    traceId: result.traceId,
    end: succeeded(result),
  });
  return withRecords(x, { call, data, receivedAt, ledger: { kind: "paid", callId } });
}

/**
 * The answer to load, or none when it has no `records.path` member: that call fails, its answer
 * stays in the store (a fixed file reloads it for 0 credits) and the pipeline sends no more calls,
 * which would meet the same mistake.
 */
function withRecords(x: CallContext, answer: Answer): { data: unknown; answer: Answer } | undefined {
  if (!x.quality.refuse(answer.call, answer.data)) return { data: answer.data, answer };
  x.ps.failed++;
  x.ps.stop = true;
  return undefined;
}
