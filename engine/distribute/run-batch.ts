import { setTimeout as sleep } from "node:timers/promises";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { OutboxTarget } from "../../store/outbox.js";
import { type Attempt, attempts, startAttempt, supersede } from "../../store/run-jobs.js";
import {
  type CarriedCounters,
  getRun,
  ownerAlive,
  type RunCounters,
  zeroCounters,
} from "../../store/runs.js";
import { type LoadedPipeline, parsePipeline } from "../define/pipeline-file.js";
import { callFactory } from "../extract/planned-calls.js";
import type { SkillCaller } from "../extract/skill-caller.js";
import { type CompiledMapping, compileMapping } from "../normalize/mapping.js";
import { emptySeen } from "../run/quality.js";
import { pipelineCeilings, type RunEnv, runCalls } from "../run/run-pipeline.js";
import { newSession, type RunSession } from "../run/session.js";
import { attemptRecord, carriedFrom } from "./attempt-record.js";
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
  /** Webhooks told when this worker takes over a batch from a worker that died (`--notify`). */
  notify?: readonly OutboxTarget[] | undefined;
}

const RUN_CHECK_MS = 1000;

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
  const { pipeline: p, mapping } = pipelineOf(job);
  const claim = await claimBatch(ctx, jobId, job, p.name);
  if (!claim) return;
  const counters = { ...zeroCounters(), ...claim.carried };
  let seen = emptySeen();
  let s: RunSession | undefined;
  const record = attemptRecord(w, jobId, ctx.workerId, (complete) => ({
    counters: { ...counters },
    failures: s?.failures ?? [],
    seen,
    complete,
    stopReason: s && (s.state.ceiling || s.state.authFailure) ? s.state.stopReason : undefined,
    ceiling: s?.state.ceiling ?? false,
    authFailure: s?.state.authFailure ?? false,
  }));
  s = await newSession(w, {
    runId: job.runId,
    resumed: job.resumed || claim.redelivered,
    counters,
    invocation: job.invocation,
    maxCredits: job.maxCredits,
    reporter: {
      update: (c) => {
        record.changed();
        ctx.onCounters?.(c);
      },
    },
  });
  s.alongLoad = record.alongLoad;
  // What the attempts taken over counted: the baseline for this worker's own metrics.
  ctx.onCounters?.({ ...counters });
  const unwatch = watchRun(ctx, job, s);
  try {
    const r = await makeCalls(ctx, s, p, mapping, job);
    seen = r.seen;
    if (ctx.drain.aborted && !r.complete) {
      throw new Error("the worker drained before this batch was done: another worker finishes it");
    }
    await record.save("done", r.complete);
  } catch (err) {
    // Given back: what this attempt paid for is carried by the one that takes the batch over.
    await record.save("released").catch(() => {});
    throw err;
  } finally {
    record.stop();
    unwatch();
  }
}

/** The batch's calls, through the same runCalls as a local run's. */
function makeCalls(
  ctx: BatchContext,
  s: RunSession,
  p: LoadedPipeline,
  mapping: CompiledMapping,
  job: BatchJob,
) {
  const prices = new Map(job.prices);
  const c = {
    pipeline: p,
    params: job.pipeline.params,
    mapping,
    freshnessMs: job.pipeline.freshnessMs,
  };
  const env: RunEnv = { client: ctx.client, prices, sheet: undefined, concurrency: ctx.concurrency };
  const factory = callFactory(p, c.params, prices, ctx.client.prepare.bind(ctx.client));
  const calls = Object.assign(job.calls, { count: job.calls.length });
  return runCalls({ s, env, c, factory, calls, ceilings: pipelineCeilings(s, p) });
}

/**
 * Takes the batch for this worker: once no earlier attempt is going in a live worker, and unless
 * one finished it or the run no longer wants it. Earlier attempts are superseded (this worker's
 * own is replaced) and their counters carried.
 */
async function claimBatch(
  ctx: BatchContext,
  jobId: string,
  job: BatchJob,
  pipeline: string,
): Promise<{ carried: CarriedCounters; redelivered: boolean } | undefined> {
  const w = ctx.warehouse;
  const earlier = await settledEarlier(w, jobId);
  if (earlier.some((a) => a.state === "done")) return undefined;
  if (!(await runWantsWork(w, job.runId, job.invocation))) return undefined;
  const taken = earlier.filter((a) => a.state !== "superseded");
  const others = taken.filter((a) => a.workerId !== ctx.workerId);
  // An attempt still `active` whose worker is gone: that worker died holding the batch.
  const lost = others.filter((a) => a.state === "active" && !a.workerAlive).map((a) => a.workerId);
  await supersede(
    w,
    jobId,
    others.map((a) => a.workerId),
    {
      workerIds: lost,
      runId: job.runId,
      pipeline,
      takenBy: ctx.workerId,
      ...(ctx.notify ? { notify: ctx.notify } : {}),
    },
  );
  await startAttempt(w, { jobId, workerId: ctx.workerId, runId: job.runId, pipeline });
  return { carried: carriedFrom(taken), redelivered: earlier.length > 0 };
}

/** Stops the batch's calls when the run no longer wants them (checked every second) or the worker drains. */
function watchRun(ctx: BatchContext, job: BatchJob, s: RunSession): () => void {
  const stop = () => {
    s.state.stop = true;
  };
  const timer = setInterval(() => {
    runWantsWork(ctx.warehouse, job.runId, job.invocation)
      .then((wants) => {
        if (!wants) stop();
      })
      .catch(() => {});
  }, RUN_CHECK_MS);
  ctx.drain.addEventListener("abort", stop);
  if (ctx.drain.aborted) stop();
  return () => {
    clearInterval(timer);
    ctx.drain.removeEventListener("abort", stop);
  };
}

/** Pipelines this worker parsed lately: its batches are mostly of the same few (~2 ms each). */
const parsed = new Map<string, { pipeline: LoadedPipeline; mapping: CompiledMapping }>();

function pipelineOf(job: BatchJob): { pipeline: LoadedPipeline; mapping: CompiledMapping } {
  const key = `${job.pipeline.file}\n${job.pipeline.text}`;
  let hit = parsed.get(key);
  if (!hit) {
    const pipeline = parsePipeline(job.pipeline.text, job.pipeline.file);
    hit = { pipeline, mapping: compileMapping(pipeline.records) };
    if (parsed.size >= 8) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, hit);
  }
  return hit;
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

/**
 * The run still wants this invocation's batches made: running, no stop asked, its coordinating
 * process alive and the same one that queued them (a run resumed after its coordinator died
 * queues its calls anew; the dead one's batches are left).
 */
async function runWantsWork(w: Warehouse, runId: string, invocation: string): Promise<boolean> {
  const run = await getRun(w, runId);
  if (run?.["status"] !== "running" || run["stop_reason"] !== null) return false;
  if (run["invocation"] !== invocation) return false;
  return ownerAlive({ pid: run["pid"], host: run["host"], heartbeat_at: run["heartbeat_at"] });
}
