import { existsSync } from "node:fs";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { SkillsyncError, ValidationError } from "../../core/errors.js";
import { requestHash } from "../../core/hash.js";
import { migrateToLatest } from "../../store/migrate.js";
import { findJob, latestJobFor, runIsBusy } from "../../store/report-job-lookup.js";
import { type ReportJob, updateJob } from "../../store/report-jobs.js";
import type { RunCounters, RunStatus } from "../../store/runs.js";
import { type LoadedPipeline, loadPipeline } from "../define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../define/prices.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { CallFailure, SkillCaller } from "../extract/skill-caller.js";
import { type JobContext, jobContext } from "../reports/context.js";
import { createJob } from "../reports/create.js";
import { runReportJob } from "../reports/index.js";
import { inRunSession, type RunReporter } from "./session.js";
import { checkRunPricing } from "./unpriced.js";

export interface RetryOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  /** A job number or a reportId (see `skillsync reports`). */
  ref: string;
  /** Create the report again (a paid create) for a failed or lost job, or to refresh a done one. */
  create?: boolean | undefined;
  maxCredits?: number | undefined;
  prices?: PriceTable | undefined;
  /** `--allow-unpriced`: retry, with a warning, under a ceiling that cannot bind the report's operations. */
  allowUnpriced?: boolean | undefined;
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
  /** Under `allowUnpriced`: the operations a ceiling of the retry does not bind. */
  priceWarnings: string[];
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
  // As `run` does: a ceiling over an operation priced 0 or unpriced is refused before anything changes.
  const pricing = await checkRunPricing(w, {
    pipelines: [pipeline],
    prices,
    maxCredits: o.maxCredits,
    allowUnpriced: o.allowUnpriced,
  });
  if (job.status === "creating")
    await updateJob(w.db, job.id, { status: "lost", error: "the create was interrupted" });
  const { session: s, status } = await retryInSession({ o, job, pipeline, prices, create, cost });
  // A new create made a new job (even when it was refused): show that one.
  const final = (create ? await latestJobFor(w, job.requestHash) : await findJob(w, String(job.id))) ?? job;
  return {
    job: final,
    created: final.id !== job.id,
    runId: s.runId,
    status,
    stopReason: s.state.stopReason,
    authFailure: s.state.authFailure,
    counters: s.counters,
    failures: s.failures,
    priceWarnings: pricing.warnings,
  };
}

/** A retry, checked: the job, its pipeline and prices, and whether it is a new create. */
interface Retry {
  o: RetryOptions;
  job: ReportJob;
  pipeline: LoadedPipeline;
  prices: PriceTable;
  create: boolean;
  /** Credits a new create costs. */
  cost: number;
}

/** The job's create call, as planned again from the job's stored request. */
function createCall(job: ReportJob, cost: number): PlannedCall {
  return {
    skill: job.skill,
    body: job.request,
    hash: job.requestHash,
    credits: cost,
    input: undefined,
    items: 1,
    pageIndex: 0,
    fetched: 0,
  };
}

/** The retry as its own run: a new create, or the job taken over by this run and carried on. */
function retryInSession({ o, job, pipeline, prices, create, cost }: Retry) {
  const call = createCall(job, cost);
  return inRunSession(
    {
      warehouse: o.warehouse,
      key: requestHash("report-retry", { job: job.id, create }),
      pipelines: [pipeline.name],
      params: job.params,
      trigger: "manual",
      maxCredits: o.maxCredits,
      reporter: o.reporter,
      signal: o.signal,
    },
    async (s) => {
      const ctx = jobContext({
        ...s,
        client: o.client,
        pipeline,
        params: job.params as JobContext["params"],
        prices,
        freshnessMs: 0,
      });
      if (create) {
        s.counters.callsPlanned++;
        const fresh = await createJob(ctx, call);
        if (fresh) await runReportJob(ctx, call, fresh);
      } else {
        await updateJob(o.warehouse.db, job.id, { runId: s.runId, error: null });
        await runReportJob(ctx, call, { ...job, runId: s.runId });
      }
    },
  );
}
