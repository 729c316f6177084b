import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { Log } from "../core/log.js";
import { redact } from "../core/redact.js";
import { oneAtATime } from "../core/waiters.js";
import type { SheetReader } from "../engine/define/inputs.js";
import { type ParamValue, resolveDate } from "../engine/define/params.js";
import type { PriceTable } from "../engine/define/prices.js";
import { type NotifyTarget, uniqueTargets } from "../engine/notify/config.js";
import { refreshTab } from "../engine/publish/sheet-refresh.js";
import {
  type RunSummary,
  type SkillCaller,
  type StartRun,
  startRun,
  type WorkersOptions,
} from "../engine/start/start-run.js";
import { formatInZone, zonedToday } from "../schema/schedule-times.js";
import { writeEvent } from "../store/outbox.js";
import { refreshFailedEvent } from "../store/outbox-events.js";
import {
  acquireSlot,
  advanceChecked,
  beatSlot,
  claimTick,
  finishSlot,
  type Owner,
  readState,
  updateTick,
} from "../store/schedule-state.js";
import { isLiveSheetSchedule, type SheetSchedule } from "../store/sheet-schedules.js";
import { type ScheduledPipeline, scheduleKey, scheduleLabel, scheduleParams } from "./load.js";

export interface TickContext {
  warehouse: Warehouse;
  client: SkillCaller;
  owner: Owner;
  /** Aborting stops dispatching new calls of the runs in flight. */
  signal: AbortSignal;
  log: Log;
  prices?: PriceTable | undefined;
  sheet?: SheetReader | undefined;
  /** Starts the tick's run (default startRun; a test's stand-in, e.g. under a fake clock). */
  run?: StartRun | undefined;
  /** `--workers`: the runs' calls are queued for `skillsync worker` processes. */
  workers?: WorkersOptions | undefined;
  /** `--allow-unpriced`: a run whose ceiling cannot bind an operation goes ahead, with a warning. */
  allowUnpriced?: boolean | undefined;
  /** Webhooks of every scheduled pipeline (`--notify`); each pipeline's own `notify:` adds to them. */
  notify?: readonly NotifyTarget[] | undefined;
  /** Where sheet schedules push their runs' rows (undefined: Google Sheets is not configured). */
  sheets?: SheetsConnector | undefined;
  /**
   * Each run's pipeline pushes its `sheet:` outputs to `sheets` once loaded (`skillsync schedule`;
   * serve's sheet schedules refresh their own tab instead).
   */
  pushOutputs?: boolean | undefined;
}

export type TickOutcome =
  | { kind: "taken" }
  | { kind: "skipped"; reason: string }
  | { kind: "ran"; runId: string | null; status: string; paused: boolean };

const HEARTBEAT_MS = 15_000;

/**
 * The schedule's params for one tick. Relative dates (`yesterday`, `today-7`) of `type: date`
 * params, given or defaults, resolve for the tick's day in the schedule's zone, so each day's run
 * has its own dates (and its own run, not yesterday's resumed).
 */
export function paramsForTick(sp: ScheduledPipeline, tickAt: Date): Record<string, ParamValue[]> {
  const today = zonedToday(tickAt, sp.schedule.timezone);
  const given = scheduleParams(sp.schedule);
  for (const [name, def] of Object.entries(sp.pipeline.params)) {
    if (def.type !== "date") continue;
    const fallback = def.default === undefined ? undefined : [def.default].flat();
    const values = given[name] ?? fallback;
    if (values) given[name] = values.map((v) => resolveDate(String(v), today) ?? v);
  }
  return given;
}

/** Sheet refreshes of one pipeline in this process go one after another (see runTick). */
const refreshesOf = oneAtATime();

/**
 * A sheet schedule's tab after its run: the rows pushed (when the run loaded) and the outcome in the
 * header note; a tab that could not be written makes the tick `refresh-failed`. What went wrong with
 * the sheet, or a tick that could not run at all, is told to the webhooks (a run that ran tells them
 * itself, as `run.failed` or `run.ceiling`).
 */
async function refreshSheet(
  ctx: TickContext,
  sp: ScheduledPipeline,
  s: SheetSchedule,
  run: TickRun,
  tickAt: Date,
  log: TickLog,
): Promise<TickRun> {
  const target = { ...s, scheduleId: s.id, cron: sp.schedule.cron, timezone: sp.schedule.timezone };
  const r = { runId: run.runId, status: run.runStatus, ...run.spent, note: run.note, at: tickAt };
  const out = await refreshTab(ctx.sheets, ctx.warehouse, sp.pipeline, target, r);
  for (const line of out.lines) ctx.log(`${log.when}: ${line}`, { event: "schedule.output", ...log.about });
  const why = out.problem ?? (r.status === "error" ? r.note : undefined);
  if (why) await writeEvent(ctx.warehouse.db, notifyOf(ctx, sp), refreshFailedEvent(s, tickAt, why, r.runId));
  if (!out.problem) return run;
  ctx.log(`${log.when}: ${out.problem}`, { event: "schedule.refresh.failed", level: "error", ...log.about });
  return { ...run, runStatus: "refresh-failed", failed: true, note: out.problem };
}

/** The webhooks of a scheduled pipeline: the scheduler's and its own `schedule.notify`. */
export function notifyOf(ctx: Pick<TickContext, "notify">, sp: ScheduledPipeline): NotifyTarget[] {
  return uniqueTargets([...(ctx.notify ?? []), ...(sp.notify ?? [])]);
}

/** How a tick names itself in the log and who its webhooks are. */
interface TickLog {
  when: string;
  about: Record<string, string>;
  notify: NotifyTarget[];
}

interface TickRun {
  runId: string | null;
  runStatus: string;
  /** true counts towards the pause, false resets the count, undefined leaves it (ceiling, stop). */
  failed: boolean | undefined;
  note: string | undefined;
  /** `estimated`: the credits are the catalog's guesses, not a price file's (docs/pricing.md). */
  spent: { credits: number; rows: number; estimated?: boolean };
}

/** The tick's run, its heart beating the slot; never throws (a run that could not start is `error`). */
async function runScheduled(
  ctx: TickContext,
  sp: ScheduledPipeline,
  tickAt: Date,
  log: TickLog,
): Promise<TickRun> {
  const w = ctx.warehouse;
  const beat = setInterval(() => void beatSlot(w, scheduleKey(sp), tickAt).catch(() => {}), HEARTBEAT_MS);
  beat.unref();
  try {
    const { summary: s, outputs } = await (ctx.run ?? startRun)({
      warehouse: w,
      client: ctx.client,
      pipelines: [sp.pipeline],
      params: paramsForTick(sp, tickAt),
      maxCredits: sp.schedule.maxCredits,
      concurrency: sp.schedule.concurrency,
      prices: ctx.prices,
      allowUnpriced: ctx.allowUnpriced,
      trigger: "schedule",
      signal: ctx.signal,
      notify: log.notify,
      sheet: ctx.sheet,
      workers: ctx.workers,
      outputs: ctx.pushOutputs ? { sheets: ctx.sheets } : undefined,
      onStart: (id, resumed) =>
        ctx.log(`${log.when}: run ${id}${resumed ? " (resumed)" : ""} started`, {
          event: "schedule.run.started",
          ...log.about,
          runId: id,
          resumed,
        }),
    });
    const run = tickRunOf(s);
    logRunEnd(ctx, s, run.note, log);
    for (const line of outputs.lines)
      ctx.log(`${log.when}: ${line}`, { event: "schedule.output", ...log.about, runId: s.runId });
    return run;
  } catch (err) {
    // Bad params, a broken warehouse, a load that failed: the run (if it started) is recorded failed.
    const note = redact(err instanceof Error ? err.message : String(err));
    ctx.log(`${log.when}: failed: ${note}`, {
      event: "schedule.run.failed",
      level: "error",
      ...log.about,
      runId: null,
    });
    // The run, if it started, is recorded failed in its own row; the tick has no run of its own.
    return { runId: null, runStatus: "error", failed: true, note, spent: { credits: 0, rows: 0 } };
  } finally {
    clearInterval(beat);
  }
}

/** A finished run as its tick records it. */
function tickRunOf(s: RunSummary): TickRun {
  const c = s.counters;
  return {
    runId: s.runId,
    runStatus: s.status,
    // Rejected records are told (outcome `warnings`), not a failure that pauses the schedule.
    failed:
      s.status === "failed" ? true : s.status === "succeeded" || s.status === "warnings" ? false : undefined,
    note: s.stopReason ?? s.failures[0]?.message,
    spent: { credits: c.creditsSpent, rows: c.rowsWritten, estimated: s.creditsEstimated },
  };
}

/** The run's price warnings and its outcome, in the scheduler's log. */
function logRunEnd(ctx: TickContext, s: RunSummary, note: string | undefined, log: TickLog): void {
  const { when, about } = log;
  for (const warning of s.priceWarnings)
    ctx.log(`${when}: warning: ${warning}`, {
      event: "schedule.run.unpriced",
      ...about,
      runId: s.runId,
      warning,
    });
  const c = s.counters;
  ctx.log(
    `${when}: run ${s.runId}${s.resumed ? " (resumed)" : ""} ${s.status}: ${c.callsDone}/${c.callsPlanned} calls, ` +
      `${c.callsFailed} failed, ${c.creditsSpent} credits${s.creditsEstimated ? " (estimated: catalog prices)" : ""}, ` +
      `${c.rowsWritten} rows${note ? `; ${note}` : ""}`,
    {
      event: "schedule.run.finished",
      level: s.status === "succeeded" ? "info" : s.status === "failed" ? "error" : "warn",
      ...about,
      runId: s.runId,
      status: s.status,
      counters: c,
      creditsEstimated: s.creditsEstimated,
    },
  );
}

function tickLog(ctx: TickContext, sp: ScheduledPipeline, tickAt: Date): TickLog {
  return {
    when: `${scheduleLabel(sp)} @ ${formatInZone(tickAt, sp.schedule.timezone)} ${sp.schedule.timezone}`,
    about: {
      pipeline: sp.pipeline.name,
      ...(sp.sheet ? { schedule: scheduleKey(sp) } : {}),
      tickAt: tickAt.toISOString(),
    },
    notify: notifyOf(ctx, sp),
  };
}

/**
 * Runs one tick of a scheduled pipeline: claims the tick (once across schedulers), skips it while
 * the schedule is paused or an earlier tick's run still holds the slot, else runs the pipeline with
 * trigger `schedule` and records the outcome, counting failures in a row towards the pause.
 *
 * @example await runTick(ctx, scheduled, new Date("2025-01-03T06:00:00Z"), "fired");
 */
export async function runTick(
  ctx: TickContext,
  sp: ScheduledPipeline,
  tickAt: Date,
  status: "fired" | "caught-up",
): Promise<TickOutcome> {
  const log = tickLog(ctx, sp, tickAt);
  const notHeld = await holdTick(ctx, sp, tickAt, status, log);
  if (notHeld) return notHeld;
  ctx.log(`${log.when}: ${status === "caught-up" ? "catching up" : "starting"}`, {
    event: "schedule.tick",
    ...log.about,
    status,
  });
  const sheet = sp.sheet;
  // One refresh of a pipeline at a time in this process: its tab gets the rows whose run_id is its
  // run's, and a merge table's row belongs to the run that loaded it last.
  const run = sheet
    ? await refreshesOf(sp.pipeline.name, async () =>
        refreshSheet(ctx, sp, sheet, await runScheduled(ctx, sp, tickAt, log), tickAt, log),
      )
    : await runScheduled(ctx, sp, tickAt, log);
  return finishTick(ctx, sp, tickAt, run, log);
}

/**
 * Takes the tick and its pipeline's slot; or says why not: the tick is another scheduler's, the
 * sheet schedule was deleted, the schedule is paused, or an earlier tick's run still holds the slot
 * (skipped ticks are recorded and told).
 */
async function holdTick(
  ctx: TickContext,
  sp: ScheduledPipeline,
  tickAt: Date,
  status: "fired" | "caught-up",
  log: TickLog,
): Promise<TickOutcome | undefined> {
  const w = ctx.warehouse;
  const name = scheduleKey(sp);
  // Deleted from the sheet: a scheduler that has not noticed yet must not run it (nor claim the tick).
  if (sp.sheet && !(await isLiveSheetSchedule(w, sp.sheet.id))) return { kind: "skipped", reason: "deleted" };
  if (!(await claimTick(w, { pipeline: name, tickAt, status, owner: ctx.owner }))) return { kind: "taken" };
  await advanceChecked(w, name, tickAt);

  const skip = async (reason: string): Promise<TickOutcome> => {
    await updateTick(w, name, tickAt, { status: "skipped", note: reason, finished: true }, log.notify);
    ctx.log(`${log.when}: skipped: ${reason}`, { event: "schedule.skipped", level: "warn", ...log.about });
    return { kind: "skipped", reason };
  };
  const state = await readState(w, name);
  if (state?.paused)
    return skip(`paused (${state.pausedReason ?? "by hand"}); skillsync schedule resume ${name}`);
  const slot = await acquireSlot(w, name, tickAt, ctx.owner);
  if (!slot.ok) {
    const h = slot.holder;
    return skip(`the run of tick ${h.runningTickAt} is still going (${h.runningHost} pid ${h.runningPid})`);
  }
  return undefined;
}

/** Records the tick's outcome and frees the slot; failures in a row pause the schedule. */
async function finishTick(
  ctx: TickContext,
  sp: ScheduledPipeline,
  tickAt: Date,
  run: TickRun,
  log: TickLog,
): Promise<TickOutcome> {
  const w = ctx.warehouse;
  const name = scheduleKey(sp);
  const { runId, runStatus, failed, note } = run;
  await updateTick(w, name, tickAt, {
    runId,
    runStatus,
    finished: true,
    ...(note ? { note } : {}),
  });
  const after = await finishSlot(w, {
    pipeline: name,
    tickAt,
    runId,
    status: runStatus,
    failed,
    maxFailures: sp.schedule.maxFailures,
  });
  if (failed && after.paused) {
    ctx.log(
      `${name}: paused after ${after.consecutiveFailures} failed runs in a row; resume with: skillsync schedule resume ${name}`,
      { event: "schedule.paused", level: "error", ...log.about, runId },
    );
  }
  return { kind: "ran", runId, status: runStatus, paused: after.paused };
}
