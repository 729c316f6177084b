import { setTimeout as sleep } from "node:timers/promises";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import {
  type Attempt,
  type AttemptState,
  attempts,
  saveAttempt,
  startAttempt,
  supersede,
} from "../../store/run-jobs.js";
import {
  type CarriedCounters,
  getRun,
  ownerAlive,
  type RunCounters,
  zeroCounters,
} from "../../store/runs.js";
import { parsePipeline } from "../define/pipeline-file.js";
import { callFactory } from "../extract/planned-calls.js";
import type { SkillCaller } from "../extract/skill-caller.js";
import { compileMapping } from "../normalize/mapping.js";
import { emptySeen } from "../run/quality.js";
import { pipelineCeilings, type RunEnv, runCalls } from "../run/run-pipeline.js";
import { newSession, type RunSession } from "../run/session.js";
import type { BatchJob, BatchOutcome } from "./batch-job.js";

export interface BatchContext {
  warehouse: Warehouse;
  client: SkillCaller;
  workerId: string;
  concurrency: number;
  /** Aborted when the worker drains: no new call; calls in flight finish and are recorded. */
  drain: AbortSignal;
  /** Each change of the attempt's counters (metrics). */
  onCounters?: ((c: RunCounters) => void) | undefined;
}

const RUN_CHECK_MS = 1000;
const SAVE_EVERY_MS = 250;

/**
 * One delivery of a queued batch: the earlier attempt of a re-delivered batch is waited for while
 * its worker lives, then taken over (its counters carried, as a resumed run carries its earlier
 * part's); the batch's calls are made exactly as a local run makes them — reserved against the
 * run's ceilings, shared with other runs' flights, found in the store, loaded — so a call an
 * earlier attempt paid for is not paid again. Throws when the worker drained before the batch was
 * done: pg-boss then hands it to another worker.
 */
export async function runBatch(ctx: BatchContext, jobId: string, job: BatchJob): Promise<void> {
  const w = ctx.warehouse;
  const earlier = await settledEarlier(w, jobId);
  if (earlier.some((a) => a.state === "done")) return;
  if (!(await runWantsWork(w, job.runId, job.invocation))) return;
  const taken = earlier.filter((a) => a.state !== "superseded");
  // This worker's own earlier attempt (given back after an error) is replaced by the new one.
  await supersede(
    w,
    jobId,
    taken.filter((a) => a.workerId !== ctx.workerId).map((a) => a.workerId),
  );
  const p = parsePipeline(job.pipeline.text, job.pipeline.file);
  await startAttempt(w, { jobId, workerId: ctx.workerId, runId: job.runId, pipeline: p.name });

  const counters = { ...zeroCounters(), ...carriedFrom(taken) };
  let dirty = false;
  const s: RunSession = await newSession(w, {
    runId: job.runId,
    resumed: job.resumed || earlier.length > 0,
    counters,
    invocation: job.invocation,
    maxCredits: job.maxCredits,
    reporter: {
      update: (c) => {
        dirty = true;
        ctx.onCounters?.(c);
      },
    },
  });
  const c = {
    pipeline: p,
    params: job.pipeline.params,
    mapping: compileMapping(p.records),
    freshnessMs: job.pipeline.freshnessMs,
  };
  const env: RunEnv = {
    client: ctx.client,
    prices: new Map(job.prices),
    sheet: undefined,
    concurrency: ctx.concurrency,
  };
  // Each load records the attempt's counters in its own transaction: rows and their count commit together.
  s.alongLoad = (db, added) =>
    saveAttempt({ db }, jobId, ctx.workerId, {
      ...outcome(false),
      counters: {
        ...counters,
        callsDone: counters.callsDone + added.calls,
        rowsWritten: counters.rowsWritten + added.rows,
        rowsRejected: counters.rowsRejected + added.rejected,
      },
    });
  // What the attempts taken over counted: the baseline for this worker's own metrics.
  ctx.onCounters?.({ ...counters });
  let seen = emptySeen();
  const outcome = (complete: boolean): BatchOutcome => ({
    counters: { ...counters },
    failures: s.failures,
    seen,
    complete,
    stopReason: s.state.ceiling || s.state.authFailure ? s.state.stopReason : undefined,
    ceiling: s.state.ceiling,
    authFailure: s.state.authFailure,
  });
  // Saved as it goes, so a worker killed mid-batch leaves what it paid for to the attempt taking
  // over; one save at a time, the last one after every earlier one.
  let saving = Promise.resolve();
  const saveNow = (state: AttemptState, complete = false) => {
    const saved = saving.then(() => saveAttempt(w, jobId, ctx.workerId, outcome(complete), state));
    saving = saved.catch(() => {});
    return saved;
  };
  const save = setInterval(() => {
    if (!dirty) return;
    dirty = false;
    saveNow("active").catch(() => {});
  }, SAVE_EVERY_MS);
  const watch = setInterval(() => {
    void runWantsWork(w, job.runId, job.invocation)
      .then((wants) => {
        if (!wants) s.state.stop = true;
      })
      .catch(() => {});
  }, RUN_CHECK_MS);
  const onDrain = () => {
    s.state.stop = true;
  };
  ctx.drain.addEventListener("abort", onDrain);
  if (ctx.drain.aborted) onDrain();
  try {
    const calls = Object.assign(job.calls, { count: job.calls.length });
    const factory = callFactory(p, c.params, env.prices, ctx.client.prepare.bind(ctx.client));
    const r = await runCalls(s, env, c, factory, calls, pipelineCeilings(s, p));
    seen = r.seen;
    if (ctx.drain.aborted && !r.complete) {
      throw new Error("the worker drained before this batch was done: another worker finishes it");
    }
    clearInterval(save);
    await saveNow("done", r.complete);
  } catch (err) {
    clearInterval(save);
    // Given back: what this attempt paid for is carried by the one that takes the batch over.
    await saveNow("released").catch(() => {});
    throw err;
  } finally {
    clearInterval(watch);
    ctx.drain.removeEventListener("abort", onDrain);
  }
}

const WAIT_EARLIER_MS = 500;

/**
 * The job's earlier attempts, once none is still going in a live worker (this one included): a
 * batch whose lease expired while its worker lives is re-delivered, and both sending its calls at
 * once could pay twice (single flight spans runs, not the attempts of one run).
 */
async function settledEarlier(w: Warehouse, jobId: string): Promise<Attempt<BatchOutcome>[]> {
  for (;;) {
    const list = await attempts<BatchOutcome>(w, { jobId });
    if (!list.some((a) => a.state === "active" && a.workerAlive)) return list;
    await sleep(WAIT_EARLIER_MS);
  }
}

/** What the attempts taken over had paid for, reused and loaded (as a resumed run carries its earlier part's). */
function carriedFrom(taken: Attempt<BatchOutcome>[]): CarriedCounters {
  const out: CarriedCounters = {
    callsCached: 0,
    callsShared: 0,
    creditsSpent: 0,
    rowsWritten: 0,
    rowsRejected: 0,
    itemsReused: 0,
    creditsSaved: 0,
  };
  for (const a of taken) {
    const c = a.outcome?.counters;
    if (!c) continue;
    for (const k of Object.keys(out) as (keyof CarriedCounters)[]) out[k] += c[k];
  }
  return out;
}

/**
 * The run still wants this invocation's batches made: running, no stop asked, its coordinating
 * process alive and the same one that queued them (a run resumed after its coordinator died
 * queues its calls anew; the dead one's batches are left).
 */
export async function runWantsWork(w: Warehouse, runId: string, invocation: string): Promise<boolean> {
  const run = await getRun(w, runId);
  if (run?.["status"] !== "running" || run["stop_reason"] !== null) return false;
  if (run["invocation"] !== invocation) return false;
  return ownerAlive({ pid: run["pid"], host: run["host"], heartbeat_at: run["heartbeat_at"] });
}
