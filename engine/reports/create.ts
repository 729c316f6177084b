import { isUniqueViolation } from "../../connectors/warehouse/driver-errors.js";
import type { CallRecord } from "../../store/calls.js";
import { latestJobFor, runIsBusy } from "../../store/report-job-lookup.js";
import { getJob, insertJob, type ReportJob, updateJob } from "../../store/report-jobs.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { reserveAlone } from "../extract/reservations.js";
import { type JobContext, reportFailure } from "./context.js";
import { finishPaid, paidCall, type ReportCall } from "./paid.js";
import { readStatus } from "./poll-timing.js";

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** How to get a new report for a job that cannot go on, and what that costs. */
function recreateHint(job: ReportJob, credits: number): string {
  return `\`skillsync reports retry ${job.id} --create\` creates a new report (costs ${fmt(credits)} credits)`;
}

/**
 * The job for a create call: an unfinished job of the same request is reused (its report is
 * polled, never created and paid for again); a report loaded within `freshness` is not asked
 * again; a failed or lost one is not re-created without the user saying so; otherwise a new
 * report is created.
 */
export async function openJob(ctx: JobContext, call: PlannedCall): Promise<ReportJob | undefined> {
  const job = await latestJobFor(ctx.warehouse, call.hash);
  const name = ctx.pipeline.name;
  if (!job || job.status === "refused") return createJob(ctx, call);
  if (job.status === "done") {
    const age = Date.now() - Date.parse(job.finishedAt ?? job.updatedAt);
    if (age > ctx.freshnessMs) return createJob(ctx, call);
    ctx.counters.callsCached++;
    ctx.counters.callsDone++;
    ctx.report(
      `${name}: report ${job.reportId} (job #${job.id}) was loaded ${Math.round(age / 60_000)} min ago`,
    );
    return undefined;
  }
  if (await runIsBusy(ctx.warehouse, job.runId, ctx.runId)) {
    reportFailure(
      ctx,
      call.hash,
      "REPORT_BUSY",
      `${name}: report job #${job.id} is being worked on by run ${job.runId}`,
    );
    return undefined;
  }
  if (job.status === "creating") {
    // A process died between sending the create and storing its answer: it may have been billed.
    const error = "the create call was interrupted before its answer was stored; it may have been billed";
    await updateJob(ctx.warehouse.db, job.id, { status: "lost", error });
    job.status = "lost";
    job.error = error;
  }
  if (job.status === "failed" || job.status === "lost") {
    const message = `${name}: report job #${job.id} ${job.status === "lost" ? "was lost" : "failed"} (${job.error ?? "no reason given"}); it is not created again automatically: ${recreateHint(job, call.credits)}`;
    reportFailure(ctx, call.hash, job.status === "lost" ? "REPORT_LOST" : "REPORT_FAILED", message);
    return undefined;
  }
  await updateJob(ctx.warehouse.db, job.id, { runId: ctx.runId, error: null });
  ctx.counters.callsCached++;
  ctx.counters.callsDone++;
  ctx.report(`${name}: resuming report ${job.reportId} (job #${job.id}, ${job.status})`);
  return { ...job, runId: ctx.runId };
}

type Sent = Awaited<ReturnType<typeof paidCall>>;
type Created = Extract<Sent, { ok: true }>;

/**
 * Creates a report: the job row is written with the credit reservation and the ledger row,
 * before the call is sent; the answer (reportId, maybe parts) is stored with the ledger success.
 */
export async function createJob(ctx: JobContext, planned: PlannedCall): Promise<ReportJob | undefined> {
  const call: ReportCall = {
    skill: planned.skill,
    body: planned.body,
    hash: planned.hash,
    credits: planned.credits,
  };
  const sent = await sendCreate(ctx, call);
  if (!sent) return undefined;
  const { jobId, out } = sent;
  if (!out.ok) {
    if (jobId === 0) return undefined;
    const status = out.ambiguous ? "lost" : "refused";
    const why = out.ambiguous ? `${out.error.message}; no reportId is known` : out.error.message;
    await updateJob(ctx.warehouse.db, jobId, {
      status,
      error: why,
      ...(out.ambiguous ? {} : { credits: 0 }),
    });
    return undefined;
  }
  return recordCreated(ctx, call, jobId, out);
}

/**
 * Sends the create call, its job row written with the reservation: a crash never leaves a paid
 * create without it. The job's id is 0 when no reservation was made. Undefined when another run
 * created the same report just now.
 */
async function sendCreate(
  ctx: JobContext,
  call: ReportCall,
): Promise<{ jobId: number; out: Sent } | undefined> {
  let jobId = 0;
  const reserve = (record: CallRecord) =>
    reserveAlone(ctx.warehouse, ctx.ceilings, record, async (trx) => {
      jobId = await insertJob(trx, {
        pipeline: ctx.pipeline.name,
        pipelineFile: ctx.pipeline.file,
        skill: call.skill,
        requestHash: call.hash,
        request: call.body,
        params: ctx.params,
        runId: ctx.runId,
        credits: call.credits,
      });
    });
  try {
    const out = await paidCall({ ...ctx, reserve }, call);
    return { jobId, out };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    reportFailure(
      ctx,
      call.hash,
      "REPORT_BUSY",
      `${ctx.pipeline.name}: another run created this report just now`,
    );
    return undefined;
  }
}

/** Stores the create's answer with the ledger success and moves the job on by what the answer says. */
async function recordCreated(
  ctx: JobContext,
  call: ReportCall,
  jobId: number,
  done: Created,
): Promise<ReportJob | undefined> {
  const w = ctx.warehouse;
  const data = (done.result.data ?? {}) as Record<string, unknown>;
  const reading = readStatus(data);
  const reportId = String(data["reportId"]);
  await w.db.transaction().execute(async (trx) => {
    await finishPaid(trx, ctx, call, done, true);
    await updateJob(trx, jobId, {
      reportId,
      providerStatus: typeof data["status"] === "string" ? data["status"] : null,
      status: reading.state === "ready" ? "downloading" : reading.state === "failed" ? "failed" : "pending",
      ...(reading.state === "ready" ? { parts: reading.parts } : {}),
      ...(reading.state === "failed" ? { error: reading.reason, finishedAt: new Date().toISOString() } : {}),
    });
  });
  ctx.counters.callsDone++;
  ctx.report(`${ctx.pipeline.name}: created report ${reportId} (job #${jobId})`);
  const job = await getJob(w.db, jobId);
  if (job?.status === "failed") {
    reportFailure(
      ctx,
      call.hash,
      "REPORT_FAILED",
      `${ctx.pipeline.name}: report ${reportId} failed: ${job.error}`,
    );
    return undefined;
  }
  return job;
}
