import pLimit from "p-limit";
import type { ReportJob } from "../../store/report-jobs.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { type JobContext, jobContext, type ReportRunContext, stopped } from "./context.js";
import { openJob } from "./create.js";
import { checkReportPipeline } from "./csv-table.js";
import { downloadParts } from "./download.js";
import { pollUntilReady } from "./poll-job.js";

export type { ReportRunContext } from "./context.js";

/**
 * Runs a report pipeline's create calls (one per input value; usually one): each report is
 * created once (or an unfinished job of the same request resumed), polled with backoff until its
 * parts are listed, and each part downloaded once and loaded in one transaction.
 *
 * @example
 * // in the runner: if (p.report) return runReportCalls({ warehouse, client, pipeline: p, calls, ... });
 */
export async function runReportCalls(ctx: ReportRunContext): Promise<void> {
  const { calls, ...rest } = ctx;
  checkReportPipeline(ctx.pipeline);
  const job = jobContext(rest);
  const limit = pLimit(ctx.pipeline.concurrency ?? 4);
  // A job that fails unexpectedly stops the pipeline: queued jobs create nothing, running ones
  // finish their current step, and only then does the error end the run.
  const ended = await Promise.allSettled(
    calls.map((call) =>
      limit(async () => {
        try {
          await runReportJob(job, call);
        } catch (err) {
          // Inside the limit: the next queued job starts as soon as this one settles.
          job.pipelineStop.stop = true;
          throw err;
        }
      }),
    ),
  );
  const crashed = ended.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (crashed) throw crashed.reason;
}

/** One report from wherever its job stands: create or resume, poll, download, load. */
export async function runReportJob(ctx: JobContext, call: PlannedCall, existing?: ReportJob): Promise<void> {
  // Stopped (a 403, the ceiling, an interrupt, another job's failure): no new report is created.
  if (stopped(ctx)) return;
  let job = existing ?? (await openJob(ctx, call));
  if (!job) return;
  if (job.status === "pending" || job.status === "timeout") {
    job = await pollUntilReady(ctx, job);
    if (!job) return;
  }
  if (job.status === "downloading") await downloadParts(ctx, job, call);
}
