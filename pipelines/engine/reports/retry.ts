import { existsSync } from "node:fs";
import { migrateToLatest } from "../../../connectors/warehouse/migrate.js";
import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { SkillsyncError, ValidationError } from "../../../core/errors.js";
import { warehouseCeilings } from "../budget.js";
import type { PlannedCall } from "../calls.js";
import { requestHash } from "../hash.js";
import { loadPipeline } from "../load.js";
import { loadPrices, type PriceTable } from "../prices.js";
import type { CallFailure, RunReporter, SkillCaller } from "../runner.js";
import { endRun, type RunCounters, type RunStatus, startRun, zeroCounters } from "../runs.js";
import type { JobContext, RunState } from "./context.js";
import { createJob } from "./create.js";
import { runReportJob } from "./index.js";
import { findJob, latestJobFor, runIsBusy } from "./job-lookup.js";
import { type ReportJob, updateJob } from "./jobs.js";

export interface RetryOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  /** A job number or a reportId (see `skillsync reports`). */
  ref: string;
  /** Create the report again (a paid create) for a failed or lost job, or to refresh a done one. */
  create?: boolean | undefined;
  maxCredits?: number | undefined;
  prices?: PriceTable | undefined;
  reporter?: RunReporter | undefined;
  signal?: AbortSignal | undefined;
}

export interface RetryResult {
  /** The job as it stands after the retry (a new job when the report was created again). */
  job: ReportJob;
  created: boolean;
  runId: string;
  status: RunStatus;
  stopReason: string | undefined;
  authFailure: boolean;
  counters: RunCounters;
  failures: CallFailure[];
}

const NEEDS_CREATE = new Set(["failed", "lost", "refused", "creating"]);

/** Credits a new create of this job's report would cost. */
export function createCost(job: ReportJob, prices: PriceTable = loadPrices()): number {
  const p = prices.get(job.skill);
  return p && "perCall" in p ? p.perCall : (p?.perItem ?? 1);
}

/**
 * Whether a job can be retried as asked; throws a ValidationError saying what to do otherwise.
 * Returns true when the retry is a new (paid) create.
 */
export function checkRetry(job: ReportJob, create: boolean, cost: number): boolean {
  const needsCreate = NEEDS_CREATE.has(job.status);
  if (needsCreate && !create) {
    throw new ValidationError(`report job #${job.id}`, [
      {
        path: [],
        message: `it is ${job.status} (${job.error ?? "no reason given"}); its report must be created again, which costs ${cost} credits: add --create`,
      },
    ]);
  }
  if (create && !needsCreate && job.status !== "done") {
    throw new ValidationError(`report job #${job.id}`, [
      { path: [], message: `it is ${job.status} and can go on without a new create: drop --create` },
    ]);
  }
  if (!create && job.status === "done") {
    throw new ValidationError(`report job #${job.id}`, [
      {
        path: [],
        message: `it is done (${job.rowsLoaded} rows); to load a fresh report add --create (costs ${cost} credits)`,
      },
    ]);
  }
  return create;
}

/**
 * Retries a stuck or failed report job on the user's word: a pending or timed-out job is polled
 * again, a downloading one gets its missing parts; a failed or lost one is created again only with
 * `create` (that costs a create). Runs as its own run, with the ledger and credit ceilings.
 *
 * @example const r = await retryReportJob({ warehouse, client, ref: "3" }); r.job.status // "done"
 */
export async function retryReportJob(o: RetryOptions): Promise<RetryResult> {
  const w = o.warehouse;
  await migrateToLatest(w);
  const job = await findJob(w, o.ref);
  if (!job)
    throw new ValidationError("report job", [
      { path: [], message: `no report job "${o.ref}" (see skillsync reports)` },
    ]);
  const prices = o.prices ?? loadPrices();
  const cost = createCost(job, prices);
  if (await runIsBusy(w, job.runId, "")) {
    throw new SkillsyncError(
      "REPORT_BUSY",
      `report job #${job.id} is being worked on by run ${job.runId}, which is still alive`,
    );
  }
  const create = o.create === true;
  checkRetry(job, create, cost);
  const file = job.pipelineFile && existsSync(job.pipelineFile) ? job.pipelineFile : job.pipeline;
  const pipeline = loadPipeline(file);
  if (job.status === "creating")
    await updateJob(w.db, job.id, { status: "lost", error: "the create was interrupted" });

  const { id: runId } = await startRun(w, {
    key: requestHash("report-retry", { job: job.id, create }),
    pipelines: [pipeline.name],
    params: job.params,
    trigger: "manual",
  });
  const counters: RunCounters = zeroCounters();
  const state: RunState = { stop: false, stopReason: undefined, authFailure: false, ceiling: false };
  const ctx: JobContext = {
    warehouse: w,
    client: o.client,
    pipeline,
    params: job.params as JobContext["params"],
    ceilings: [
      { scope: `invocation:${runId}:${Date.now()}`, limit: o.maxCredits ?? null, label: "--max-credits" },
      ...(await warehouseCeilings(w)),
    ],
    runId,
    prices,
    counters,
    failures: [],
    state,
    report: (note) => o.reporter?.update({ ...counters }, note),
    signal: o.signal,
    freshnessMs: 0,
    pipelineStop: { stop: false },
  };
  const call: PlannedCall = {
    skill: job.skill,
    body: job.request,
    hash: job.requestHash,
    credits: cost,
    input: undefined,
    items: 1,
    pageIndex: 0,
    fetched: 0,
  };
  let fatal: unknown;
  try {
    if (create) {
      counters.callsPlanned++;
      const fresh = await createJob(ctx, call);
      if (fresh) await runReportJob(ctx, call, fresh);
    } else {
      await updateJob(w.db, job.id, { runId, error: null });
      await runReportJob(ctx, call, { ...job, runId });
    }
  } catch (err) {
    fatal = err;
  }
  const status = await endRun(w, runId, counters, {
    fatal,
    aborted: o.signal?.aborted === true,
    state,
    failures: ctx.failures,
  });
  if (fatal) throw fatal;
  // A new create made a new job (even when it was refused): show that one.
  const final = (create ? await latestJobFor(w, job.requestHash) : await findJob(w, String(job.id))) ?? job;
  return {
    job: final,
    created: final.id !== job.id,
    runId,
    status,
    stopReason: state.stopReason,
    authFailure: state.authFailure,
    counters,
    failures: ctx.failures,
  };
}
