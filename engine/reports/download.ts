import { createReadStream, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { createGunzip, gzipSync } from "node:zlib";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { spoolStoredBody } from "../../store/chunks.js";
import { openLoad } from "../../store/loads.js";
import { getJob, type ReportJob, reportIdsOf, updateJob } from "../../store/report-jobs.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { type JobContext, reportFailure, stopped } from "./context.js";
import { JsonMemberStream } from "./json-member.js";
import { loadPart } from "./load-part.js";
import { finishPaid, paidCall, type ReportCall, reportCall } from "./paid.js";
import { spoolDir, sweepSpoolDirs } from "./spool-dir.js";
import { streamDownload } from "./stream-download.js";

/**
 * Bytes read from the spool at a time. Read chunks wait in the stream while rows load, so they
 * outlive scavenges; at the default 64 KiB they were promoted and the whole compressed part piled
 * up as garbage until V8's next full collection, at 8 KiB they die young (measured, 1M rows).
 */
const SPOOL_READ_BYTES = 8 * 1024;

/** The CSV text of a stored download, streamed out of its gzipped JSON in a spool file. */
function csvOf(spool: string): Readable {
  const file = createReadStream(spool, { highWaterMark: SPOOL_READ_BYTES });
  const gunzip = createGunzip();
  const member = new JsonMemberStream(["content"]);
  file.on("error", (err) => member.destroy(err));
  gunzip.on("error", (err) => member.destroy(err));
  return file.pipe(gunzip).pipe(member);
}

// Nothing stored (cannot happen after a stored success): an empty part, as before.
const EMPTY = gzipSync('{"content":""}');

/**
 * Downloads and loads every part not loaded yet, one at a time. A part's download is stored with
 * its ledger success before loading, so a crash while loading reloads it from the store: a part
 * is never downloaded (paid) twice. When all parts are in, the job is `done`.
 *
 * The part is loaded from a spool file holding exactly the stored bytes (written as the download
 * streams, or copied from the store a piece at a time on a resume), not from a buffer held for the whole load (16 MB
 * of compressed part at a million rows, more for a bigger part). A killed run leaves its
 * `skillsync-part-<pid>-*` directory behind; the next download removes it.
 */
export async function downloadParts(ctx: JobContext, start: ReportJob, planned: PlannedCall): Promise<void> {
  await sweepSpoolDirs();
  const dir = await spoolDir();
  try {
    await downloadInto(ctx, start, planned, join(dir, "part.json.gz"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One part of a report job, as it is downloaded and loaded. */
interface Part {
  job: ReportJob;
  /** Its index in the job's parts. */
  index: number;
  call: ReportCall;
  /** How messages name it: `pipeline: report id part n/m`. */
  label: string;
  spool: string;
}

async function downloadInto(
  ctx: JobContext,
  start: ReportJob,
  planned: PlannedCall,
  spool: string,
): Promise<void> {
  let job = start;
  for (let index = 0; index < job.parts.length; index++) {
    if (job.partsLoaded.includes(index)) continue;
    if (stopped(ctx)) return;
    const part = partOf(ctx, job, index, spool);
    const observedAt = await spoolPart(ctx, part);
    if (observedAt === undefined) return;
    ctx.counters.callsDone++;
    if (!(await loadSpooled(ctx, part, planned, observedAt))) return;
    job = (await getJob(ctx.warehouse.db, job.id)) ?? job;
  }
  await finishJob(ctx, job);
}

function partOf(ctx: JobContext, job: ReportJob, index: number, spool: string): Part {
  const call = reportCall(ctx, ctx.pipeline.report!.download, {
    connectionId: job.request["connectionId"],
    documentToken: job.parts[index]!.documentToken,
  });
  const label = `${ctx.pipeline.name}: report ${job.reportId} part ${index + 1}/${job.parts.length}`;
  return { job, index, call, label, spool };
}

/**
 * The part's stored bytes in the spool file: from the store when it was downloaded before, else
 * downloaded (paid for) and stored. The time its answer was received; undefined when the download
 * failed (the job says why).
 */
async function spoolPart(ctx: JobContext, part: Part): Promise<string | undefined> {
  const { job, index, call, spool } = part;
  const w = ctx.warehouse;
  const downloaded = job.partsDownloaded.includes(index) && (await spoolStoredBody(w.db, call.hash, spool));
  if (downloaded) {
    ctx.counters.callsCached++;
    return new Date().toISOString();
  }
  ctx.counters.callsPlanned++;
  const config = ctx.client instanceof SkillClient ? ctx.client.config : undefined;
  const out = await paidCall(
    ctx,
    call,
    config && (() => streamDownload(config, call.skill, call.body, spool)),
  );
  if (!out.ok) {
    await updateJob(w.db, job.id, { error: `${part.label}: ${out.error.message}` });
    return undefined;
  }
  // Stored with the ledger success before loading: a crash while loading reloads it, never re-downloads.
  await w.db.transaction().execute(async (trx) => {
    await finishPaid(trx, ctx, call, out, true, config ? spool : undefined);
    const current = (await getJob(trx, job.id, true)) ?? job;
    await updateJob(trx, job.id, {
      partsDownloaded: [...new Set([...current.partsDownloaded, index])].sort((a, b) => a - b),
      credits: current.credits + call.credits,
    });
  });
  // Answered whole by a client that does not stream: spooled from the store.
  if (!config && !(await spoolStoredBody(w.db, call.hash, spool))) writeFileSync(spool, EMPTY);
  return out.receivedAt;
}

/** Loads the spooled part; false when it could not be (the job and the run's failures say why). */
async function loadSpooled(
  ctx: JobContext,
  part: Part,
  planned: PlannedCall,
  observedAt: string,
): Promise<boolean> {
  const { job, call, label } = part;
  const w = ctx.warehouse;
  try {
    const r = await loadPart({
      warehouse: w,
      pipeline: ctx.pipeline,
      jobId: job.id,
      reportId: job.reportId!,
      part: part.index,
      content: csvOf(part.spool),
      requestHash: call.hash,
      context: {
        input: planned.input,
        request: job.request,
        params: ctx.params,
        observedAt,
        runId: ctx.runId,
        loadId: await openLoad(w, ctx.runId, ctx.pipeline.name),
        skill: ctx.pipeline.skill,
      },
    });
    ctx.counters.rowsWritten += r.rows;
    ctx.counters.rowsRejected += r.rejected;
    ctx.report(`${label}: ${r.skipped ? "already loaded" : `${r.rows} row(s) loaded`}`);
    return true;
  } catch (err) {
    const message = `${label} was downloaded but could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
    await updateJob(w.db, job.id, { error: message });
    reportFailure(ctx, call.hash, "REPORT_LOAD", message);
    return false;
  }
}

/** All parts are in: `replace` drops the rows of earlier reports of the same request; the job is done. */
async function finishJob(ctx: JobContext, job: ReportJob): Promise<void> {
  const records = ctx.pipeline.records;
  await ctx.warehouse.db.transaction().execute(async (trx) => {
    if (records.mode === "replace") {
      await trx
        .deleteFrom(records.table)
        .where("report_id", "<>", job.reportId)
        .where("report_id", "in", reportIdsOf(trx, job.requestHash))
        .execute();
    }
    await updateJob(trx, job.id, { status: "done", error: null, finishedAt: new Date().toISOString() });
  });
  ctx.report(
    `${ctx.pipeline.name}: report ${job.reportId} loaded (${job.rowsLoaded} rows, ${job.parts.length} part(s))`,
  );
}
