import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { SkillClient } from "../../../connectors/skill-api/client.js";
import type { PlannedCall } from "../calls.js";
import { type JobContext, reportFailure, stopped } from "./context.js";
import { getJob, type ReportJob, updateJob } from "./jobs.js";
import { JsonMemberStream } from "./json-member.js";
import { loadPart } from "./load-part.js";
import { finishPaid, paidCall, reportCall, storedBody } from "./paid.js";
import { streamDownload } from "./stream-download.js";

/** The CSV text of a stored download, streamed out of its gzipped JSON (empty when none was stored). */
function csvOf(stored: Buffer | undefined): Readable {
  if (!stored) return Readable.from([]);
  const gunzip = createGunzip();
  const member = new JsonMemberStream(["content"]);
  gunzip.on("error", (err) => member.destroy(err));
  return Readable.from([stored]).pipe(gunzip).pipe(member);
}

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
    let stored = job.partsDownloaded.includes(part) ? await storedBody(w.db, call.hash) : undefined;
    let observedAt = new Date().toISOString();
    if (stored) {
      ctx.counters.callsCached++;
    } else {
      ctx.counters.callsPlanned++;
      const config = ctx.client instanceof SkillClient ? ctx.client.config : undefined;
      const out = await paidCall(
        ctx,
        call,
        undefined,
        config && (() => streamDownload(config, call.skill, call.body)),
      );
      if (!out.ok) {
        await updateJob(w.db, job.id, { error: `${label}: ${out.error.message}` });
        return;
      }
      observedAt = out.receivedAt;
      // Stored with the ledger success before loading: a crash while loading reloads it, never re-downloads.
      await w.db.transaction().execute(async (trx) => {
        await finishPaid(trx, ctx, call, out, true);
        const current = (await getJob(trx, job.id, true)) ?? job;
        await updateJob(trx, job.id, {
          partsDownloaded: [...new Set([...current.partsDownloaded, part])].sort((a, b) => a - b),
          credits: current.credits + call.credits,
        });
      });
      stored = await storedBody(w.db, call.hash);
    }
    ctx.counters.callsDone++;
    try {
      const r = await loadPart({
        warehouse: w,
        pipeline: ctx.pipeline,
        jobId: job.id,
        reportId: job.reportId!,
        part,
        content: csvOf(stored),
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
