import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { pidState } from "../core/pid-state.js";
import { redact } from "../core/redact.js";
import { type OutboxTarget, writeEvent } from "./outbox.js";
import { tickEvent } from "./outbox-events.js";

export type TickStatus = "fired" | "skipped" | "missed" | "caught-up";

/** One scheduled pipeline's row in skillsync_schedule_state. */
export interface ScheduleState {
  pipeline: string;
  consecutiveFailures: number;
  paused: boolean;
  pausedReason: string | null;
  lastTickAt: string | null;
  lastStatus: string | null;
  lastRunId: string | null;
  checkedAt: string | null;
  runningTickAt: string | null;
  runningHost: string | null;
  runningPid: number | null;
  heartbeatAt: string | null;
}

/** Who a scheduler is: the run slot and tick rows carry it. */
export interface Owner {
  host: string;
  pid: number;
}

/** A slot whose holder has not beaten its heart for this long is taken over (its process is gone). */
const SLOT_STALE_MS = 90_000;

const iso = (d: Date) => d.toISOString();
const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

function toState(r: Record<string, unknown>): ScheduleState {
  return {
    pipeline: String(r["pipeline"]),
    consecutiveFailures: Number(r["consecutive_failures"] ?? 0),
    paused: Number(r["paused"] ?? 0) === 1,
    pausedReason: text(r["paused_reason"]),
    lastTickAt: text(r["last_tick_at"]),
    lastStatus: text(r["last_status"]),
    lastRunId: text(r["last_run_id"]),
    checkedAt: text(r["checked_at"]),
    runningTickAt: text(r["running_tick_at"]),
    runningHost: text(r["running_host"]),
    runningPid: r["running_pid"] === null || r["running_pid"] === undefined ? null : Number(r["running_pid"]),
    heartbeatAt: text(r["heartbeat_at"]),
  };
}

/** Creates missing state rows; a new one counts ticks from now (nothing was missed before it existed). */
export async function ensureStates(w: Warehouse, pipelines: string[], now = new Date()): Promise<void> {
  for (const pipeline of pipelines) {
    await w.db
      .insertInto("skillsync_schedule_state")
      .values({ pipeline, checked_at: iso(now), updated_at: iso(now) })
      .onConflict((oc) => oc.column("pipeline").doNothing())
      .execute();
  }
}

export async function readStates(w: Warehouse, pipelines?: string[]): Promise<ScheduleState[]> {
  let q = w.db.selectFrom("skillsync_schedule_state").selectAll().orderBy("pipeline");
  if (pipelines) q = q.where("pipeline", "in", pipelines.length ? pipelines : [""]);
  return (await q.execute()).map(toState);
}

export async function readState(w: Warehouse, pipeline: string): Promise<ScheduleState | undefined> {
  return (await readStates(w, [pipeline]))[0];
}

/**
 * Claims a tick by inserting its row. The (pipeline, tick_at) key is unique, so when several
 * schedulers share a warehouse exactly one insert succeeds; the others get false and do nothing.
 */
export async function claimTick(
  w: Warehouse,
  t: { pipeline: string; tickAt: Date; status: TickStatus; owner: Owner; note?: string },
  /** Webhooks told of a missed tick, in the transaction that records it (docs/notifications.md). */
  notify?: readonly OutboxTarget[],
): Promise<boolean> {
  if (t.status !== "missed" || !notify?.length) return insertTick(w.db, t);
  return w.db.transaction().execute(async (db) => {
    const claimed = await insertTick(db, t);
    if (claimed) await writeEvent(db, notify, tickEvent(t.pipeline, t.tickAt, "schedule.missed", t.note));
    return claimed;
  });
}

async function insertTick(
  db: Kysely<AnyDB>,
  t: { pipeline: string; tickAt: Date; status: TickStatus; owner: Owner; note?: string },
): Promise<boolean> {
  const rows = await db
    .insertInto("skillsync_schedule_ticks")
    .values({
      pipeline: t.pipeline,
      tick_at: iso(t.tickAt),
      status: t.status,
      note: t.note ?? null,
      host: t.owner.host,
      pid: t.owner.pid,
      created_at: iso(new Date()),
    })
    .onConflict((oc) => oc.columns(["pipeline", "tick_at"]).doNothing())
    .returning("id")
    .execute();
  return rows.length === 1;
}

export async function updateTick(
  w: Warehouse,
  pipeline: string,
  tickAt: Date,
  set: { status?: TickStatus; runId?: string | null; runStatus?: string; note?: string; finished?: boolean },
  /** Webhooks told of a skipped tick, in the transaction that records it (docs/notifications.md). */
  notify?: readonly OutboxTarget[],
): Promise<void> {
  if (set.status !== "skipped" || !notify?.length) return setTick(w.db, pipeline, tickAt, set);
  await w.db.transaction().execute(async (db) => {
    await setTick(db, pipeline, tickAt, set);
    await writeEvent(db, notify, tickEvent(pipeline, tickAt, "schedule.skipped", set.note));
  });
}

async function setTick(
  db: Kysely<AnyDB>,
  pipeline: string,
  tickAt: Date,
  set: { status?: TickStatus; runId?: string | null; runStatus?: string; note?: string; finished?: boolean },
): Promise<void> {
  await db
    .updateTable("skillsync_schedule_ticks")
    .set({
      ...(set.status ? { status: set.status } : {}),
      ...(set.runId !== undefined ? { run_id: set.runId } : {}),
      ...(set.runStatus ? { run_status: set.runStatus } : {}),
      ...(set.note !== undefined ? { note: redact(set.note).slice(0, 2000) } : {}),
      ...(set.finished ? { finished_at: iso(new Date()) } : {}),
    })
    .where("pipeline", "=", pipeline)
    .where("tick_at", "=", iso(tickAt))
    .execute();
}

function holderGone(s: ScheduleState, me: Owner, now: number): boolean {
  if (s.runningHost === me.host && s.runningPid !== null && s.runningPid !== me.pid) {
    if (pidState(s.runningPid) !== "alive") return true;
  }
  return now - Date.parse(s.heartbeatAt ?? "") > SLOT_STALE_MS || !s.heartbeatAt;
}

/**
 * Takes the pipeline's run slot for a tick, unless a run of an earlier tick still holds it (then
 * the caller records the tick as skipped). A compare-and-set on the row, so two schedulers
 * cannot both take it; a holder whose process died is replaced.
 */
export async function acquireSlot(
  w: Warehouse,
  pipeline: string,
  tickAt: Date,
  me: Owner,
): Promise<{ ok: true } | { ok: false; holder: ScheduleState }> {
  const s = await readState(w, pipeline);
  if (!s) throw new Error(`no schedule state for ${pipeline}`);
  if (s.runningTickAt !== null && !holderGone(s, me, Date.now())) return { ok: false, holder: s };
  const now = iso(new Date());
  let q = w.db
    .updateTable("skillsync_schedule_state")
    .set({
      running_tick_at: iso(tickAt),
      running_host: me.host,
      running_pid: me.pid,
      heartbeat_at: now,
      updated_at: now,
    })
    .where("pipeline", "=", pipeline);
  q =
    s.runningTickAt === null
      ? q.where("running_tick_at", "is", null)
      : q.where("running_tick_at", "=", s.runningTickAt).where("heartbeat_at", "=", s.heartbeatAt);
  const r = await q.executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return { ok: true };
  return { ok: false, holder: (await readState(w, pipeline)) ?? s };
}

export async function beatSlot(w: Warehouse, pipeline: string, tickAt: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_schedule_state")
    .set({ heartbeat_at: iso(new Date()) })
    .where("pipeline", "=", pipeline)
    .where("running_tick_at", "=", iso(tickAt))
    .execute();
}

/**
 * Releases the slot and records how the tick's run ended. `failed` true counts one more failure in
 * a row (and pauses at `maxFailures`), false resets the count, undefined leaves it (ceiling, stop).
 */
export async function finishSlot(
  w: Warehouse,
  r: {
    pipeline: string;
    tickAt: Date;
    runId: string | null;
    status: string;
    failed: boolean | undefined;
    maxFailures: number;
  },
): Promise<ScheduleState> {
  const now = iso(new Date());
  await w.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("skillsync_schedule_state")
      .set((eb) => ({
        running_tick_at: null,
        running_host: null,
        running_pid: null,
        last_tick_at: iso(r.tickAt),
        last_status: r.status,
        last_run_id: r.runId,
        updated_at: now,
        ...(r.failed === true ? { consecutive_failures: eb("consecutive_failures", "+", 1) } : {}),
        ...(r.failed === false ? { consecutive_failures: 0 } : {}),
      }))
      .where("pipeline", "=", r.pipeline)
      .where("running_tick_at", "=", iso(r.tickAt))
      .execute();
    await trx
      .updateTable("skillsync_schedule_state")
      .set({
        paused: 1,
        paused_at: now,
        paused_reason: `${r.maxFailures} failed runs in a row (last: ${r.runId ?? r.status})`,
      })
      .where("pipeline", "=", r.pipeline)
      .where("paused", "=", 0)
      .where("consecutive_failures", ">=", r.maxFailures)
      .execute();
  });
  const s = await readState(w, r.pipeline);
  if (!s) throw new Error(`no schedule state for ${r.pipeline}`);
  return s;
}

/** Moves the "accounted for up to" mark forward (never back: another scheduler may be ahead). */
export async function advanceChecked(w: Warehouse, pipeline: string, at: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_schedule_state")
    .set({ checked_at: iso(at) })
    .where("pipeline", "=", pipeline)
    .where((eb) => eb.or([eb("checked_at", "is", null), eb("checked_at", "<", iso(at))]))
    .execute();
}

/** Un-pauses a schedule and clears its failure count; false when there is no such schedule. */
export async function resumeSchedule(w: Warehouse, pipeline: string): Promise<boolean> {
  const r = await w.db
    .updateTable("skillsync_schedule_state")
    .set({
      paused: 0,
      paused_reason: null,
      paused_at: null,
      consecutive_failures: 0,
      updated_at: iso(new Date()),
    })
    .where("pipeline", "=", pipeline)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Pauses a schedule by hand (the console, `skillsync schedule pause`): every scheduler skips its
 * ticks until `resumeSchedule`. Makes its state row when no scheduler has yet, so a schedule can be
 * paused before it first fires. True when it was running (not paused) before.
 */
export async function pauseSchedule(w: Warehouse, pipeline: string, reason: string): Promise<boolean> {
  await ensureStates(w, [pipeline]);
  const now = iso(new Date());
  const r = await w.db
    .updateTable("skillsync_schedule_state")
    .set({ paused: 1, paused_at: now, paused_reason: redact(reason).slice(0, 500), updated_at: now })
    .where("pipeline", "=", pipeline)
    .where("paused", "=", 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
