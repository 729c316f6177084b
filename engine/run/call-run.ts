import type { Kysely } from "kysely";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import type { Ceiling } from "../../store/budget.js";
import { answeredCalls } from "../../store/calls.js";
import type { ItemSplit } from "../extract/item-parts.js";
import { answerKeeper } from "../extract/keep-answers.js";
import type { PaidRun } from "../extract/paid-call.js";
import type { CallFactory, CallPlan, PlannedCall } from "../extract/planned-calls.js";
import { reservations } from "../extract/reservations.js";
import { answerQueue } from "../load/answer-queue.js";
import { type Answer, type LoadTarget, loadAnswers } from "../load/load-response.js";
import { callQueue } from "./call-queue.js";
import { loadOf } from "./load-ids.js";
import type { Compiled } from "./prepare.js";
import { type PipelineQuality, pipelineQuality, qualityRule } from "./quality.js";
import type { RunEnv, RunSession } from "./session.js";

/** Told how a pipeline's calls go: a windowed pipeline records a window once all its calls loaded. */
export interface CallProgress {
  /** A next page of a call was planned. */
  paged(next: PlannedCall): void;
  /** These calls' answers are loaded: now, or by an earlier part of the run. */
  loaded(calls: PlannedCall[]): Promise<void>;
}

/** A batched pipeline whose answers split per item, as its run needs it. */
interface ItemRun {
  pipeline: string;
  factory: CallFactory;
  split: ItemSplit;
  /** Items per batch at most. */
  size: number;
}

/** A pipeline's calls to make (`runCalls`): the run, the pipeline, its first calls and its ceilings. */
export interface CallsToMake {
  s: RunSession;
  env: RunEnv;
  c: Compiled;
  factory: CallFactory;
  calls: CallPlan;
  ceilings: Ceiling[];
  /** Items of a batched pipeline the store has fresh parts of: loaded, not asked. */
  items?: { fresh: string[]; own: string[] } | undefined;
  progress?: CallProgress | undefined;
}

/** An answer a call brought (`data`), and what to load of it: none when an earlier part loaded it. */
export interface CallAnswer {
  data: unknown;
  answer: Answer | undefined;
}

/**
 * One pipeline's calls in a run: the ONE object every step of a call (one-call.ts) is given. The
 * run's bookkeeping (counters, failures, stop flags: the session's own objects), the pipeline's
 * stop flag, the calls still to make, and the group commits a call goes through: reservations,
 * answers kept on arrival, answers loaded.
 */
export interface CallRun extends PaidRun {
  resumed: boolean;
  /** The pipeline's own stop flag and the failures that leave it incomplete. */
  pipelineStop: { stop: boolean; failed: number };
  freshnessMs: number;
  factory: CallFactory;
  itemRun: ItemRun | undefined;
  progress: CallProgress | undefined;
  quality: PipelineQuality;
  /** Workers making calls at once. */
  width: number;
  calls: ReturnType<typeof callQueue>;
  reservations: ReturnType<typeof reservations>;
  keeper: ReturnType<typeof answerKeeper>;
  /** An earlier part's paid and kept answers not yet loaded: request hash → ledger id. */
  kept: Map<string, number>;
  answers: ReturnType<typeof answerQueue<Answer>>;
  target: LoadTarget;
  alongLoad: RunSession["alongLoad"];
}

/** Opens a pipeline's calls: its reservations, keeper and loading queue, and what an earlier part kept. */
export async function openCallRun(o: CallsToMake): Promise<CallRun> {
  const { s, env, c, factory } = o;
  const p = c.pipeline;
  const pipelineStop = { stop: false, failed: 0 };
  const quality = pipelineQuality(s, p, qualityRule(env, p));
  const reserving = reservations(s.warehouse, o.ceilings, { freshnessMs: c.freshnessMs, runId: s.runId });
  const keeper = answerKeeper(s.warehouse, p, s.runId);
  // Calls an earlier part of this run paid for and kept, but never loaded: loaded now, not paid again.
  const kept = s.resumed ? await answeredCalls(s.warehouse.db, s.runId, p.name) : new Map<string, number>();
  const target = { ...c, loadId: await loadOf(s, p.name) };
  const width = Math.max(1, Math.min(env.concurrency, p.concurrency ?? env.concurrency));
  const answers = answerQueue<Answer>({
    write: (group) => loadGroup(run, group),
    // Answers wait here, not calls: a slow database pauses the workers before memory grows.
    maxPending: Math.max(8, 2 * width),
    // Short groups: a group's rows are written in one go, and a call waiting to be reserved waits for it.
    maxGroup: 16,
    onError: () => {
      pipelineStop.stop = true;
    },
    yieldTo: reserving.idle,
  });
  const split = factory.split;
  const run: CallRun = {
    warehouse: s.warehouse,
    runId: s.runId,
    resumed: s.resumed,
    counters: s.counters,
    failures: s.failures,
    state: s.state,
    report: s.report,
    alongLoad: s.alongLoad,
    client: env.client,
    rateLimit: env.prices.get(p.skill)?.rateLimit,
    pipeline: p,
    ceilings: o.ceilings,
    pipelineStop,
    freshnessMs: c.freshnessMs,
    factory,
    itemRun: split ? { pipeline: p.name, factory, split, size: p.batch?.size ?? 100 } : undefined,
    progress: o.progress,
    quality,
    width,
    calls: callQueue(o.calls),
    reservations: reserving,
    keeper,
    kept,
    answers,
    target,
  };
  return run;
}

/** Loads a group of answers in one transaction and counts what it wrote (the loading queue's writer). */
async function loadGroup(run: CallRun, group: Answer[]): Promise<void> {
  const along = run.alongLoad;
  const alongside =
    along &&
    ((db: Kysely<AnyDB>, l: { rows: number; rejected: number }) =>
      along(db, { calls: group.length, rows: l.rows, rejected: l.rejected }));
  const r = await loadAnswers(run.warehouse, run.target, run.runId, group, alongside);
  run.counters.rowsWritten += r.rows;
  run.counters.rowsRejected += r.rejected;
  run.counters.callsDone += group.length;
  run.quality.loaded(group, r);
  run.report();
  await run.progress?.loaded(group.map((a) => a.call));
}

/**
 * The load step of a call: its next page planned (taken before the next planned call), then its
 * answer handed to the loading queue — back as soon as there is room, so this worker's slot is
 * free for the next call while the answer loads.
 */
export async function loadAnswer(run: CallRun, call: PlannedCall, got: CallAnswer): Promise<void> {
  const next = run.factory.next(call, got.data);
  if (next) {
    run.counters.callsPlanned++;
    run.counters.pagesFound++;
    run.progress?.paged(next);
    run.calls.addFound(next);
  }
  if (got.answer) await run.answers.push(got.answer);
  else await run.progress?.loaded([call]);
}
