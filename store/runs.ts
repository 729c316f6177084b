import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { pidState } from "../core/pid-state.js";
import { redact } from "../core/redact.js";
import { type OutboxTarget, writeEvent } from "./outbox.js";
import { runEvent } from "./outbox-events.js";
import { ledgerCredits, ledgerTotals } from "./run-totals.js";

export type RunStatus = "running" | "succeeded" | "warnings" | "failed" | "ceiling" | "interrupted";
export type Trigger = "manual" | "schedule" | "server" | "mcp";

export interface RunCounters {
  /**
   * The first calls as planned, plus each call found while running: next pages (`pagesFound`),
   * report polls and parts, items asked after all.
   */
  callsPlanned: number;
  /**
   * Next pages found while running, each counted in `callsPlanned` too: a plan counts first pages
   * only. Said by the progress line and the summary, not kept in `skillsync_runs`: a resumed run
   * finds them again, as it plans its calls again.
   */
  pagesFound: number;
  callsDone: number;
  callsCached: number;
  /** Answers another run's call of the same request brought while this run waited (0 credits). */
  callsShared: number;
  callsFailed: number;
  creditsSpent: number;
  rowsWritten: number;
  rowsRejected: number;
  /** Columns whose member no record of the run had (null in every row). */
  columnsEmpty: number;
  /** Record members no column reads. */
  membersUnmapped: number;
  /** Items of batches loaded from their stored parts or another run's call instead of being paid for. */
  itemsReused: number;
  /** What asking for those items would have cost. */
  creditsSaved: number;
  /** Requests the API refused with 429: each waited and went again (docs/rate-limits.md). */
  rateLimited: number;
}

/** Counters of a run that has done nothing yet. */
export const zeroCounters = (): RunCounters => ({
  callsPlanned: 0,
  pagesFound: 0,
  callsDone: 0,
  callsCached: 0,
  callsShared: 0,
  callsFailed: 0,
  creditsSpent: 0,
  rowsWritten: 0,
  rowsRejected: 0,
  columnsEmpty: 0,
  membersUnmapped: 0,
  itemsReused: 0,
  creditsSaved: 0,
  rateLimited: 0,
});

/** How a run ended: an exception, a ceiling, an interruption, refused or failed calls, or success. */
function runOutcome(o: {
  fatal: unknown;
  ceiling: boolean;
  aborted: boolean;
  authFailure: boolean;
  callsFailed: number;
  /** `--strict` found rejected records, empty columns or unmapped members. */
  strictFailure?: boolean | undefined;
  /** Records were rejected and no pipeline file (`rejects: allow`) or flag (`--allow-rejects`) accepts it. */
  rejectWarning?: boolean | undefined;
}): RunStatus {
  if (o.fatal) return "failed";
  if (o.ceiling) return "ceiling";
  if (o.aborted) return "interrupted";
  if (o.callsFailed > 0 || o.authFailure || o.strictFailure) return "failed";
  return o.rejectWarning ? "warnings" : "succeeded";
}

const HEARTBEAT_STALE_MS = 120_000;

export function newRunId(): string {
  const t = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `r${t}-${randomBytes(4).toString("hex")}`;
}

/**
 * Whether the process that owns a running run is alive: on this host, its pid; elsewhere, a
 * heartbeat younger than two minutes (runs beat every 5 s).
 */
export function ownerAlive(row: { pid: unknown; host: unknown; heartbeat_at: unknown }): boolean {
  const pid = Number(row.pid);
  if (row.host === hostname() && row.pid !== null && Number.isInteger(pid)) return pidState(pid) === "alive";
  const beat = row.heartbeat_at ? Date.parse(String(row.heartbeat_at)) : 0;
  return Date.now() - beat < HEARTBEAT_STALE_MS;
}

/**
 * The counters a resumed run carries over from its earlier parts: what they paid, reused, wrote
 * and rejected is not done again. Planned and done are counted afresh (a resumed run plans every
 * call again and skips the loaded ones); failures and warnings belong to the part that met them.
 */
export type CarriedCounters = Pick<
  RunCounters,
  | "callsCached"
  | "callsShared"
  | "creditsSpent"
  | "rowsWritten"
  | "rowsRejected"
  | "itemsReused"
  | "creditsSaved"
>;

function carried(r: Record<string, unknown>): CarriedCounters {
  return {
    callsCached: Number(r["calls_cached"] ?? 0),
    callsShared: Number(r["calls_shared"] ?? 0),
    creditsSpent: Number(r["credits_spent"] ?? 0),
    rowsWritten: Number(r["rows_written"] ?? 0),
    rowsRejected: Number(r["rows_rejected"] ?? 0),
    itemsReused: Number(r["items_reused"] ?? 0),
    creditsSaved: Number(r["credits_saved"] ?? 0),
  };
}

/** What a run is started with: its key (pipelines and params), what it records of them, and why. */
interface RunStart {
  key: string;
  pipelines: string[];
  params: unknown;
  trigger: Trigger;
  creditsEstimated?: boolean | undefined;
}

/**
 * Starts a run, or resumes the last unfinished run of the same pipelines and params (crashed,
 * stopped at a ceiling, interrupted or failed), so its load markers keep pages from loading twice.
 */
export async function startRun(
  w: Warehouse,
  r: RunStart,
): Promise<{ id: string; resumed: boolean; carried?: CarriedCounters }> {
  const estimated = r.creditsEstimated === undefined ? null : r.creditsEstimated ? 1 : 0;
  const now = new Date().toISOString();
  for (const c of await unfinishedRuns(w, r.key)) {
    if (c.status === "running" && ownerAlive(c)) continue;
    if (await claimRun(w, c, { now, estimated })) {
      // Calls the crashed process left in flight: their answers were never stored.
      await interruptReserved(w, [String(c.id)]);
      // Credits and rows from the ledger, which a crash cannot leave behind the work done.
      return {
        id: c.id as string,
        resumed: true,
        carried: { ...carried(c), ...(await ledgerTotals(w, c.id as string)) },
      };
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
      credits_estimated: estimated,
    })
    .execute();
  return { id, resumed: false };
}

/** The latest runs of this key a start may resume, newest first, with the counters they carry. */
function unfinishedRuns(w: Warehouse, key: string) {
  return w.db
    .selectFrom("skillsync_runs")
    .select([
      "id",
      "status",
      "pid",
      "host",
      "heartbeat_at",
      "calls_cached",
      "calls_shared",
      "credits_spent",
      "rows_written",
      "rows_rejected",
      "items_reused",
      "credits_saved",
    ])
    .where("run_key", "=", key)
    .where("status", "in", ["running", "ceiling", "interrupted", "failed"])
    .orderBy("started_at", "desc")
    .limit(5)
    .execute();
}

/**
 * Takes an unfinished run over for this process, if its status is still the one read (another
 * process resuming it at the same moment finds it changed). True when this process has it.
 */
async function claimRun(
  w: Warehouse,
  c: { id: string; status: string },
  o: { now: string; estimated: 0 | 1 | null },
): Promise<boolean> {
  const claimed = await w.db
    .updateTable("skillsync_runs")
    .set({
      status: "running",
      pid: process.pid,
      host: hostname(),
      heartbeat_at: o.now,
      finished_at: null,
      stop_reason: null,
      error: null,
      // A part priced by guesses makes the whole run's credits an estimate.
      ...(o.estimated === 1 ? { credits_estimated: 1 } : {}),
    })
    .where("id", "=", c.id)
    .where("status", "=", c.status)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Writes the counters (and the heartbeat) of a run in progress. */
export async function updateRun(w: { db: Kysely<AnyDB> }, id: string, c: RunCounters): Promise<void> {
  await w.db
    .updateTable("skillsync_runs")
    .set({
      calls_planned: c.callsPlanned,
      calls_done: c.callsDone,
      calls_cached: c.callsCached,
      calls_shared: c.callsShared,
      calls_failed: c.callsFailed,
      credits_spent: c.creditsSpent,
      rows_written: c.rowsWritten,
      rows_rejected: c.rowsRejected,
      columns_empty: c.columnsEmpty,
      members_unmapped: c.membersUnmapped,
      items_reused: c.itemsReused,
      credits_saved: c.creditsSaved,
      rate_limited: c.rateLimited,
      heartbeat_at: new Date().toISOString(),
    })
    .where("id", "=", id)
    .execute();
}

async function finishRun(
  w: Warehouse,
  id: string,
  status: RunStatus,
  c: RunCounters,
  detail: {
    stopReason?: string | undefined;
    error?: string | undefined;
    warnings?: string[] | undefined;
    /** Webhooks told of a run that failed, ended with warnings or stopped at a ceiling (docs/notifications.md). */
    notify?: readonly OutboxTarget[] | undefined;
  } = {},
): Promise<void> {
  // The run's end and its notification commit together: neither is ever without the other.
  await w.db.transaction().execute(async (db) => {
    await updateRun({ db }, id, c);
    await db
      .updateTable("skillsync_runs")
      .set({
        status,
        warnings: detail.warnings?.length ? redact(JSON.stringify(detail.warnings)) : null,
        finished_at: new Date().toISOString(),
        stop_reason: detail.stopReason ?? null,
        error: detail.error === undefined ? null : redact(detail.error).slice(0, 4000),
      })
      .where("id", "=", id)
      .execute();
    const event = detail.notify?.length ? await runEvent(db, id, status, c, detail) : undefined;
    if (event) await writeEvent(db, detail.notify, event);
  });
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
    state: {
      ceiling: boolean;
      authFailure: boolean;
      stopReason: string | undefined;
      strictFailure?: boolean | undefined;
      rejectWarning?: boolean | undefined;
    };
    failures: { message: string }[];
    warnings?: string[] | undefined;
    notify?: readonly OutboxTarget[] | undefined;
  },
): Promise<RunStatus> {
  // What the run paid, as its ledger holds it (every worker's calls, every part's): the figure printed.
  const credits = await ledgerCredits(w, id).catch(() => undefined);
  if (credits !== undefined) counters.creditsSpent = credits;
  const status = runOutcome({
    fatal: o.fatal,
    ceiling: o.state.ceiling,
    aborted: o.aborted,
    authFailure: o.state.authFailure,
    callsFailed: counters.callsFailed,
    strictFailure: o.state.strictFailure,
    rejectWarning: o.state.rejectWarning,
  });
  await finishRun(w, id, status, counters, {
    warnings: o.warnings,
    notify: o.notify,
    stopReason: o.state.stopReason,
    error: o.fatal instanceof Error ? o.fatal.message : o.failures[0]?.message,
  });
  return status;
}

/** The latest runs with every column, newest first. */
export function recentRuns(w: Warehouse, limit: number): Promise<Record<string, unknown>[]> {
  return w.db.selectFrom("skillsync_runs").selectAll().orderBy("started_at", "desc").limit(limit).execute();
}

export function getRun(w: Warehouse, id: string): Promise<Record<string, unknown> | undefined> {
  return w.db.selectFrom("skillsync_runs").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Marks one process's running scheduled runs of `pipeline` interrupted, and their reserved calls
 * interrupted (as a crashed run's would be at resume). Returns the ids it marked.
 */
export async function interruptOwnRuns(
  w: Warehouse,
  owner: { host: string; pid: number },
  pipeline: string,
  reason: string,
): Promise<string[]> {
  const now = new Date().toISOString();
  const runs = await w.db
    .selectFrom("skillsync_runs")
    .select(["id", "pipelines"])
    .where("status", "=", "running")
    .where("trigger", "=", "schedule")
    .where("host", "=", owner.host)
    .where("pid", "=", owner.pid)
    .execute();
  const ids = runs
    .filter((r) => {
      const names = typeof r.pipelines === "string" ? JSON.parse(r.pipelines) : r.pipelines;
      return Array.isArray(names) && names.length === 1 && names[0] === pipeline;
    })
    .map((r) => String(r.id));
  if (!ids.length) return ids;
  await w.db
    .updateTable("skillsync_runs")
    .set({ status: "interrupted", finished_at: now, stop_reason: reason })
    .where("id", "in", ids)
    .where("status", "=", "running")
    .execute();
  await interruptReserved(w, ids);
  return ids;
}

/**
 * Asks a running run's workers to stop taking its calls (`stop_reason` set while it runs); they
 * finish the calls they have in flight. The run's end writes its final reason.
 */
export async function askRunToStop(w: Warehouse, id: string, reason: string): Promise<void> {
  await w.db
    .updateTable("skillsync_runs")
    .set({ stop_reason: reason })
    .where("id", "=", id)
    .where("status", "=", "running")
    .execute();
}

/**
 * Runs' calls left reserved by a process that died or stopped (their answers never came, or never
 * were stored): interrupted, so no run waits for them and a resume knows they may have been billed.
 */
export async function interruptReserved(w: Warehouse, runIds: string[], pipeline?: string): Promise<void> {
  let q = w.db
    .updateTable("skillsync_calls")
    .set({ outcome: "interrupted", finished_at: new Date().toISOString() })
    .where("run_id", "in", runIds)
    .where("outcome", "=", "reserved");
  if (pipeline !== undefined) q = q.where("pipeline", "=", pipeline);
  await q.execute();
}
