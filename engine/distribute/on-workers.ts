import { setTimeout as sleep } from "node:timers/promises";
import type { WorkQueue } from "../../connectors/queue/work-queue.js";
import { type Attempt, attempts, setRunInvocation } from "../../store/run-jobs.js";
import { askRunToStop, interruptReserved, type RunCounters } from "../../store/runs.js";
import { liveWorkers } from "../../store/workers.js";
import { readPipelineBytes } from "../define/pipeline-file.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { Compiled } from "../run/prepare.js";
import { mergeSeen, type QualitySeen } from "../run/quality.js";
import {
  finishPipeline,
  pipelineCeilings,
  planPipelineCalls,
  type RunEnv,
  runCalls,
  runPipeline,
} from "../run/run-pipeline.js";
import { type RunOptions, type RunSummary, runPipelines } from "../run/runner.js";
import type { RunSession } from "../run/session.js";
import type { BatchJob, BatchOutcome } from "./batch-job.js";

export interface WorkersOptions {
  queue: WorkQueue;
  /** Calls per queued batch (default 20): what a dead worker's lease gives back at once. */
  batchSize?: number | undefined;
  /** How long a worker holds a batch before pg-boss re-delivers it (default 120 s). */
  leaseSeconds?: number | undefined;
}

const FOLLOW_MS = 500;
/** With batches waiting and no live worker for this long, the run says so (it keeps waiting). */
const NO_WORKER_NOTE_MS = 10_000;

/**
 * A run whose calls are made by `skillsync worker` processes: planned here, queued in batches,
 * followed here (the same counters, progress and summary as a local run, added up over every
 * worker's attempts); each pipeline of a chain is queued once the one before it has loaded.
 *
 * @example const summary = await runOnWorkers({ warehouse, client, pipelines, workers: { queue } });
 */
export function runOnWorkers(o: RunOptions & { workers: WorkersOptions }): Promise<RunSummary> {
  return runPipelines({ ...o, runStage: (s, env, c) => stageOnWorkers(s, env, c, o) });
}

async function stageOnWorkers(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  o: RunOptions & { workers: WorkersOptions },
): Promise<void> {
  // Report operations poll the API for their own jobs: they run here, as in a local run.
  if (c.pipeline.report) return runPipeline(s, env, c);
  const { factory, calls, items } = await planPipelineCalls(s, env, c);
  const seen: QualitySeen[] = [];
  let complete = true;
  if (items.fresh.length || items.own.length) {
    // Items fresh in the store are loaded from their parts here, for 0 credits.
    const none = Object.assign([], { count: 0 });
    const ceilings = pipelineCeilings(s, c.pipeline);
    const r = await runCalls({ s, env, c, factory, calls: none, ceilings, items });
    seen.push(r.seen);
    complete = r.complete;
  }
  const base = { ...s.counters };
  const jobs = batchJobs(s, env, c, o, calls);
  if (s.state.stop) return;
  await setRunInvocation(s.warehouse, s.runId, s.invocation);
  const ids = await o.workers.queue.enqueue(jobs, { leaseSeconds: o.workers.leaseSeconds ?? 120 });
  s.report(`${c.pipeline.name}: ${ids.length} batch(es) queued for workers`);
  const end = await follow(
    s,
    c,
    o.workers.queue,
    base,
    new Map(ids.map((id, i) => [id, jobs[i]!.calls.length])),
  );
  await interruptReserved(s.warehouse, [s.runId], c.pipeline.name);
  await finishPipeline(s, env, c, {
    seen: mergeSeen([...seen, ...end.seen]),
    complete: complete && end.complete,
  });
}

/** The pipeline's calls in batches, each with all a worker needs to make them. */
function batchJobs(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  o: RunOptions & { workers: WorkersOptions },
  calls: Iterable<PlannedCall>,
): BatchJob[] {
  const pipeline = {
    file: c.pipeline.file,
    text: readPipelineBytes(c.pipeline.file).toString("utf8"),
    params: c.params,
    freshnessMs: c.freshnessMs,
  };
  const prices = [...env.prices];
  return batchesOf(calls, o.workers.batchSize ?? 20).map((batch) => ({
    runId: s.runId,
    invocation: s.invocation,
    maxCredits: o.maxCredits,
    resumed: s.resumed,
    pipeline,
    prices,
    calls: batch,
  }));
}

function batchesOf(calls: Iterable<PlannedCall>, size: number): PlannedCall[][] {
  const out: PlannedCall[][] = [];
  for (const call of calls) {
    const last = out.at(-1);
    if (last && last.length < size) last.push(call);
    else out.push([call]);
  }
  return out;
}

/**
 * Follows a pipeline's batches until each has ended: done by a worker, or cancelled or failed
 * for good in the queue. Meanwhile the run's counters are its own plus every worker attempt's;
 * a stop (Ctrl-C here, a ceiling or a refused key in a worker) cancels the batches still waiting
 * and lets the ones in flight finish.
 */
async function follow(
  s: RunSession,
  c: Compiled,
  queue: WorkQueue,
  base: RunCounters,
  sizes: Map<string, number>,
): Promise<{ seen: QualitySeen[]; complete: boolean }> {
  const ids = [...sizes.keys()];
  const mine = new Set(ids);
  let stopAsked = false;
  let lonely = Date.now();
  const known = new Map<string, Attempt<BatchOutcome>>();
  let since: string | undefined;
  for (;;) {
    // A finished attempt is read until five minutes after it finished (its time is the worker's
    // clock: the margin covers clocks that disagree), then no more: it changes no more.
    const polled = new Date(Date.now() - 300_000).toISOString();
    const changed = await attempts<BatchOutcome>(s.warehouse, {
      runId: s.runId,
      pipeline: c.pipeline.name,
      changedSince: since,
    });
    since = polled;
    for (const a of changed) known.set(`${a.jobId}\n${a.workerId}`, a);
    const list = [...known.values()].filter((a) => mine.has(a.jobId) && a.state !== "superseded");
    addUp(s, base, list);
    for (const a of list) takeStop(s, a.outcome);
    s.report();
    const done = new Set(list.filter((a) => a.state === "done").map((a) => a.jobId));
    const pending = ids.filter((id) => !done.has(id));
    if (s.state.stop && !stopAsked) {
      stopAsked = true;
      await askRunToStop(s.warehouse, s.runId, s.state.stopReason ?? "stopped");
      await queue.cancel(pending);
    }
    const states = await queue.states(pending);
    const going = list.some((a) => a.state === "active" && a.workerAlive);
    const ended = pending.filter((id) =>
      ["completed", "cancelled", "failed"].includes(states.get(id) ?? "cancelled"),
    );
    if (!going && ended.length === pending.length) return settle(s, c, list, pending, states, sizes);
    if (!going && (await liveWorkers(s.warehouse)).length === 0) {
      if (Date.now() - lonely > NO_WORKER_NOTE_MS) {
        lonely = Date.now();
        s.report(
          `${pending.length} batch(es) wait for a worker: start one with skillsync worker --db <this warehouse>`,
        );
      }
    } else lonely = Date.now();
    await sleep(FOLLOW_MS);
  }
}

/** The run's counters: its own (planning, items from the store) plus every live attempt's. */
function addUp(s: RunSession, base: RunCounters, list: Attempt<BatchOutcome>[]): void {
  const seen = mergeSeen(list.flatMap((a) => (a.outcome ? [a.outcome.seen] : [])));
  for (const k of Object.keys(base) as (keyof RunCounters)[]) {
    s.counters[k] = base[k] + list.reduce((n, a) => n + (a.outcome?.counters[k] ?? 0), 0);
  }
  // Unmapped members are a set over all answers, not a sum; empty columns are counted at the end.
  s.counters.membersUnmapped = base.membersUnmapped + seen.unmappedMembers.length;
  s.counters.columnsEmpty = base.columnsEmpty;
}

/** A worker's stop (a ceiling, a refused key) is the run's. */
function takeStop(s: RunSession, o: BatchOutcome | undefined): void {
  if (!o?.stopReason) return;
  s.state.stop = true;
  s.state.stopReason ??= o.stopReason;
  if (o.ceiling) s.state.ceiling = true;
  if (o.authFailure) s.state.authFailure = true;
}

/** The pipeline's end as the workers left it: their failures, and batches the queue gave up on. */
function settle(
  s: RunSession,
  c: Compiled,
  list: Attempt<BatchOutcome>[],
  pending: string[],
  states: Map<string, string>,
  sizes: Map<string, number>,
): { seen: QualitySeen[]; complete: boolean } {
  for (const a of list) s.failures.push(...(a.outcome?.failures ?? []));
  const lost = pending.filter((id) => states.get(id) === "failed");
  for (const id of lost) {
    // Its calls that no attempt loaded failed with it.
    const loaded = list
      .filter((a) => a.jobId === id)
      .reduce((n, a) => n + (a.outcome?.counters.callsDone ?? 0), 0);
    s.counters.callsFailed += Math.max(1, (sizes.get(id) ?? 1) - loaded);
    s.failures.push({
      pipeline: c.pipeline.name,
      skill: c.pipeline.skill,
      requestHash: id,
      code: "BATCH_FAILED",
      message: `batch ${id} (${sizes.get(id)} calls) failed on every delivery: see the workers' logs, then run again (answered calls are not paid again)`,
      ambiguous: false,
    });
  }
  const complete = pending.length === 0 && list.every((a) => a.state !== "done" || a.outcome?.complete);
  return { seen: list.flatMap((a) => (a.outcome ? [a.outcome.seen] : [])), complete };
}
