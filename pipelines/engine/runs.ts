import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { redact } from "../../core/redact.js";

export type RunStatus = "running" | "succeeded" | "failed" | "ceiling" | "interrupted";
export type Trigger = "manual" | "schedule" | "server";

export interface RunCounters {
  callsPlanned: number;
  callsDone: number;
  callsCached: number;
  callsFailed: number;
  creditsSpent: number;
  rowsWritten: number;
  rowsRejected: number;
}

/** Counters of a run that has done nothing yet. */
export const zeroCounters = (): RunCounters => ({
  callsPlanned: 0,
  callsDone: 0,
  callsCached: 0,
  callsFailed: 0,
  creditsSpent: 0,
  rowsWritten: 0,
  rowsRejected: 0,
});

/** How a run ended: an exception, a ceiling, an interruption, refused or failed calls, or success. */
export function runOutcome(o: {
  fatal: unknown;
  ceiling: boolean;
  aborted: boolean;
  authFailure: boolean;
  callsFailed: number;
}): RunStatus {
  if (o.fatal) return "failed";
  if (o.ceiling) return "ceiling";
  if (o.aborted) return "interrupted";
  return o.callsFailed > 0 || o.authFailure ? "failed" : "succeeded";
}

const HEARTBEAT_STALE_MS = 120_000;

export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `r${t}-${randomBytes(4).toString("hex")}`;
}

function ownerAlive(row: { pid: unknown; host: unknown; heartbeat_at: unknown }): boolean {
  if (row.host === hostname() && typeof row.pid === "number") {
    try {
      process.kill(row.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const beat = row.heartbeat_at ? Date.parse(String(row.heartbeat_at)) : 0;
  return Date.now() - beat < HEARTBEAT_STALE_MS;
}

/**
 * Starts a run, or resumes the last unfinished run of the same pipelines and params (crashed,
 * stopped at a ceiling, interrupted or failed), so its load markers keep pages from loading twice.
 */
export async function startRun(
  w: Warehouse,
  r: { key: string; pipelines: string[]; params: unknown; trigger: Trigger },
): Promise<{ id: string; resumed: boolean }> {
  const now = new Date().toISOString();
  const candidates = await w.db
    .selectFrom("skillsync_runs")
    .select(["id", "status", "pid", "host", "heartbeat_at"])
    .where("run_key", "=", r.key)
    .where("status", "in", ["running", "ceiling", "interrupted", "failed"])
    .orderBy("started_at", "desc")
    .limit(5)
    .execute();
  for (const c of candidates) {
    if (c.status === "running" && ownerAlive(c)) continue;
    const claimed = await w.db
      .updateTable("skillsync_runs")
      .set({
        status: "running",
        pid: process.pid,
        host: hostname(),
        heartbeat_at: now,
        finished_at: null,
        stop_reason: null,
        error: null,
      })
      .where("id", "=", c.id)
      .where("status", "=", c.status)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 1) {
      // Calls the crashed process left in flight: their answers were never stored.
      await w.db
        .updateTable("skillsync_calls")
        .set({ outcome: "interrupted", finished_at: now })
        .where("run_id", "=", c.id)
        .where("outcome", "=", "reserved")
        .execute();
      return { id: c.id as string, resumed: true };
    }
  }
  const id = newRunId();
  await w.db
    .insertInto("skillsync_runs")
    .values({
      id,
      run_key: r.key,
      pipelines: JSON.stringify(r.pipelines),
      params: redact(JSON.stringify(r.params ?? {})),
      trigger: r.trigger,
      status: "running",
      pid: process.pid,
      host: hostname(),
      started_at: now,
      heartbeat_at: now,
    })
    .execute();
  return { id, resumed: false };
}

/** Writes the counters (and the heartbeat) of a run in progress. */
export async function updateRun(w: Warehouse, id: string, c: RunCounters): Promise<void> {
  await w.db
    .updateTable("skillsync_runs")
    .set({
      calls_planned: c.callsPlanned,
      calls_done: c.callsDone,
      calls_cached: c.callsCached,
      calls_failed: c.callsFailed,
      credits_spent: c.creditsSpent,
      rows_written: c.rowsWritten,
      rows_rejected: c.rowsRejected,
      heartbeat_at: new Date().toISOString(),
    })
    .where("id", "=", id)
    .execute();
}

export async function finishRun(
  w: Warehouse,
  id: string,
  status: RunStatus,
  c: RunCounters,
  detail: { stopReason?: string | undefined; error?: string | undefined } = {},
): Promise<void> {
  await updateRun(w, id, c);
  await w.db
    .updateTable("skillsync_runs")
    .set({
      status,
      finished_at: new Date().toISOString(),
      stop_reason: detail.stopReason ?? null,
      error: detail.error === undefined ? null : redact(detail.error).slice(0, 4000),
    })
    .where("id", "=", id)
    .execute();
}

/**
 * Ends a run the way every runner does: its status from runOutcome, written with its counters, the
 * stop reason and the error (the fatal one, else the first call failure). Returns the status.
 */
export async function endRun(
  w: Warehouse,
  id: string,
  counters: RunCounters,
  o: {
    fatal: unknown;
    aborted: boolean;
    state: { ceiling: boolean; authFailure: boolean; stopReason: string | undefined };
    failures: { message: string }[];
  },
): Promise<RunStatus> {
  const status = runOutcome({
    fatal: o.fatal,
    ceiling: o.state.ceiling,
    aborted: o.aborted,
    authFailure: o.state.authFailure,
    callsFailed: counters.callsFailed,
  });
  await finishRun(w, id, status, counters, {
    stopReason: o.state.stopReason,
    error: o.fatal instanceof Error ? o.fatal.message : o.failures[0]?.message,
  });
  return status;
}
