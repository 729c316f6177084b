import { RequestError } from "../../connectors/skill-api/errors.js";
import { getJob, type ReportJob, updateJob } from "../../store/report-jobs.js";
import { type JobContext, reportFailure, stopped } from "./context.js";
import { finishPaid, paidCall, reportCall } from "./paid.js";
import { backoff, pause, pollTimings, readStatus } from "./poll-timing.js";

/**
 * Polls a created report until its parts are listed: waits grow from `poll.initial` by `factor`
 * up to `poll.max`; after `poll.timeout` (counted from this run's first wait) the job is left as
 * `timeout` for a later run or `skillsync reports retry`. Each poll is a paid call. Returns the
 * job once it is `downloading`, else undefined (failed, timed out, stopped, refused).
 */
export async function pollUntilReady(ctx: JobContext, start: ReportJob): Promise<ReportJob | undefined> {
  const timings = pollTimings(ctx.pipeline.report!);
  const deadline = Date.now() + timings.timeoutMs;
  const waits = backoff(timings);
  const name = `${ctx.pipeline.name}: report ${start.reportId}`;
  let job = start;
  for (;;) {
    if (stopped(ctx)) return undefined;
    const wait = waits.next().value;
    if (Date.now() + wait > deadline) {
      await timeOut(ctx, job, name);
      return undefined;
    }
    if (!(await pause(wait, ctx.signal))) return undefined;
    if (stopped(ctx)) return undefined;
    const reading = await pollOnce(ctx, job);
    if (!reading) return undefined;
    job = (await getJob(ctx.warehouse.db, job.id)) ?? job;
    if (reading.state === "ready") {
      ctx.report(`${name}: ${reading.parts.length} part(s) ready`);
      return job;
    }
    if (reading.state === "failed") {
      reportFailure(ctx, job.requestHash, "REPORT_FAILED", `${name} failed: ${reading.reason}`);
      return undefined;
    }
    ctx.report(`${name}: ${reading.status ?? "no status"} (poll ${job.polls})`);
  }
}

/** The poll's time is up: the job is left as `timeout` for a later run or `reports retry`. */
async function timeOut(ctx: JobContext, job: ReportJob, name: string): Promise<void> {
  const reason = `still ${job.providerStatus ?? "pending"} after ${job.polls} poll(s); timed out after ${ctx.pipeline.report!.poll.timeout}`;
  await updateJob(ctx.warehouse.db, job.id, { status: "timeout", error: reason });
  reportFailure(
    ctx,
    job.requestHash,
    "REPORT_TIMEOUT",
    `${name} ${reason}; a later run or \`skillsync reports retry ${job.id}\` polls it again (no new create)`,
  );
}

/**
 * One status call (paid), its answer recorded on the job with the ledger success. What the
 * status says; undefined when the call failed (a report the service does not know fails the job).
 */
async function pollOnce(ctx: JobContext, job: ReportJob): Promise<ReturnType<typeof readStatus> | undefined> {
  const w = ctx.warehouse;
  const call = reportCall(ctx, ctx.pipeline.report!.status, {
    connectionId: job.request["connectionId"],
    reportId: job.reportId,
  });
  ctx.counters.callsPlanned++;
  const out = await paidCall(ctx, call);
  if (!out.ok) {
    if (out.error instanceof RequestError && out.error.status === 404) {
      const error = `the service does not know report ${job.reportId} (HTTP 404)`;
      await updateJob(w.db, job.id, { status: "failed", error, finishedAt: new Date().toISOString() });
    } else {
      await updateJob(w.db, job.id, { error: out.error.message });
    }
    return undefined;
  }
  const data = out.result.data;
  const reading = readStatus(data);
  const providerStatus = (data as { status?: unknown } | null)?.status;
  await w.db.transaction().execute(async (trx) => {
    await finishPaid(trx, ctx, call, out, false);
    const current = (await getJob(trx, job.id, true)) ?? job;
    await updateJob(trx, job.id, {
      polls: current.polls + 1,
      credits: current.credits + call.credits,
      polledAt: new Date().toISOString(),
      providerStatus: typeof providerStatus === "string" ? providerStatus : null,
      ...(reading.state === "ready" ? { status: "downloading", parts: reading.parts, error: null } : {}),
      ...(reading.state === "failed"
        ? { status: "failed", error: reading.reason, finishedAt: new Date().toISOString() }
        : {}),
    });
  });
  ctx.counters.callsDone++;
  return reading;
}
