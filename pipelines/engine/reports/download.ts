import type { PlannedCall } from "../calls.js";
import { freshResponse } from "../ledger.js";
import { type JobContext, reportFailure, stopped } from "./context.js";
import { getJob, type ReportJob, updateJob } from "./jobs.js";
import { loadPart } from "./load-part.js";
import { finishPaid, paidCall, reportCall } from "./paid.js";

const FOREVER = Number.MAX_SAFE_INTEGER;

/**
 * Downloads and loads every part not loaded yet, one at a time. A part's download is stored with
 * its ledger success before loading, so a crash while loading reloads it from the store: a part
 * is never downloaded (paid) twice. When all parts are in, the job is `done`.
 */
export async function downloadParts(ctx: JobContext, start: ReportJob, planned: PlannedCall): Promise<void> {
  const w = ctx.warehouse;
  const spec = ctx.pipeline.report!;
  let job = start;
  for (let part = 0; part < job.parts.length; part++) {
    if (job.partsLoaded.includes(part)) continue;
    if (stopped(ctx)) return;
    const call = reportCall(ctx, spec.download, {
      connectionId: job.request["connectionId"],
      documentToken: job.parts[part]!.documentToken,
    });
    const label = `${ctx.pipeline.name}: report ${job.reportId} part ${part + 1}/${job.parts.length}`;
    let data: Record<string, unknown> | undefined;
    let observedAt = new Date().toISOString();
    const stored = job.partsDownloaded.includes(part)
      ? await freshResponse(w, call.hash, FOREVER)
      : undefined;
    if (stored) {
      data = stored.data;
      observedAt = stored.receivedAt;
      ctx.counters.callsCached++;
    } else {
      ctx.counters.callsPlanned++;
      const out = await paidCall(ctx, call);
      if (!out.ok) {
        await updateJob(w.db, job.id, { error: `${label}: ${out.error.message}` });
        return;
      }
      data = (out.result.data ?? {}) as Record<string, unknown>;
      observedAt = out.receivedAt;
      await w.db.transaction().execute(async (trx) => {
        await finishPaid(trx, ctx, call, out, true);
        const current = (await getJob(trx, job.id, true)) ?? job;
        await updateJob(trx, job.id, {
          partsDownloaded: [...new Set([...current.partsDownloaded, part])].sort((a, b) => a - b),
          credits: current.credits + call.credits,
        });
      });
    }
    ctx.counters.callsDone++;
    const content = typeof data["content"] === "string" ? data["content"] : "";
    try {
      const r = await loadPart({
        warehouse: w,
        pipeline: ctx.pipeline,
        jobId: job.id,
        reportId: job.reportId!,
        part,
        content,
        requestHash: call.hash,
        context: {
          input: planned.input,
          request: job.request,
          params: ctx.params,
          observedAt,
          runId: ctx.runId,
          skill: ctx.pipeline.skill,
        },
      });
      ctx.counters.rowsWritten += r.rows;
      ctx.counters.rowsRejected += r.rejected;
      ctx.report(`${label}: ${r.skipped ? "already loaded" : `${r.rows} row(s) loaded`}`);
    } catch (err) {
      const message = `${label} was downloaded but could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
      await updateJob(w.db, job.id, { error: message });
      reportFailure(ctx, call.hash, "REPORT_LOAD", message);
      return;
    }
    job = (await getJob(w.db, job.id)) ?? job;
  }
  await finishJob(ctx, job);
}

/** All parts are in: `replace` drops the rows of earlier reports of the same request; the job is done. */
async function finishJob(ctx: JobContext, job: ReportJob): Promise<void> {
  const records = ctx.pipeline.records;
  await ctx.warehouse.db.transaction().execute(async (trx) => {
    if (records.mode === "replace") {
      await trx
        .deleteFrom(records.table)
        .where("report_id", "<>", job.reportId)
        .where(
          "report_id",
          "in",
          trx
            .selectFrom("skillsync_report_jobs")
            .select("report_id")
            .where("request_hash", "=", job.requestHash)
            .where("report_id", "is not", null),
        )
        .execute();
    }
    await updateJob(trx, job.id, { status: "done", error: null, finishedAt: new Date().toISOString() });
  });
  ctx.report(
    `${ctx.pipeline.name}: report ${job.reportId} loaded (${job.rowsLoaded} rows, ${job.parts.length} part(s))`,
  );
}
