import { hostname } from "node:os";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { pidState } from "../core/pid-state.js";
import { type ReportJob, toJob } from "./report-jobs.js";

const TABLE = "skillsync_report_jobs";

/** The newest job for a request (whatever its state). */
export async function latestJobFor(w: Warehouse, requestHash: string): Promise<ReportJob | undefined> {
  const row = await w.db
    .selectFrom(TABLE)
    .selectAll()
    .where("request_hash", "=", requestHash)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? toJob(row) : undefined;
}

/** A job by its number or by its reportId. */
export async function findJob(w: Warehouse, ref: string): Promise<ReportJob | undefined> {
  let q = w.db.selectFrom(TABLE).selectAll();
  q = /^\d+$/.test(ref) ? q.where("id", "=", Number(ref)) : q.where("report_id", "=", ref);
  const row = await q.orderBy("id", "desc").limit(1).executeTakeFirst();
  return row ? toJob(row) : undefined;
}

export async function listJobs(
  w: Warehouse,
  filter: { status?: string | undefined; pipeline?: string | undefined; limit?: number } = {},
): Promise<ReportJob[]> {
  let q = w.db.selectFrom(TABLE).selectAll();
  if (filter.status) q = q.where("status", "=", filter.status);
  if (filter.pipeline) q = q.where("pipeline", "=", filter.pipeline);
  const rows = await q
    .orderBy("id", "desc")
    .limit(filter.limit ?? 50)
    .execute();
  return rows.map(toJob);
}

/** Whether another run that is still alive owns a job, so this one leaves the job alone. */
export async function runIsBusy(w: Warehouse, runId: string | null, self: string): Promise<boolean> {
  if (!runId || runId === self) return false;
  const run = await w.db
    .selectFrom("skillsync_runs")
    .select(["status", "heartbeat_at", "pid", "host"])
    .where("id", "=", runId)
    .executeTakeFirst();
  if (run?.status !== "running") return false;
  if (run.host === hostname() && typeof run.pid === "number") return pidState(run.pid) === "alive";
  const beat = run.heartbeat_at ? Date.parse(String(run.heartbeat_at)) : 0;
  return Date.now() - beat < 120_000;
}
