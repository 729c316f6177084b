import type { Warehouse } from "../connectors/warehouse/open.js";
import type { Log } from "../core/log.js";
import { redact } from "../core/redact.js";
import type { SheetReader } from "../engine/define/inputs.js";
import { type ParamValue, resolveDate } from "../engine/define/params.js";
import type { PriceTable } from "../engine/define/prices.js";
import { type NotifyTarget, uniqueTargets } from "../engine/notify/config.js";
import { type RunPipelines, type RunSummary, runPipelines, type SkillCaller } from "../engine/run/runner.js";
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
import { type ScheduledPipeline, scheduleParams } from "./load.js";
import { formatInZone, zonedToday } from "./times.js";

export interface TickContext {
  warehouse: Warehouse;
  client: SkillCaller;
  owner: Owner;
  /** Aborting stops dispatching new calls of the runs in flight. */
  signal: AbortSignal;
  log: Log;
  prices?: PriceTable | undefined;
  sheet?: SheetReader | undefined;
  /** Runs the tick's pipeline (default in this process; `--workers`: the workers make the calls). */
  run?: RunPipelines | undefined;
  /** Webhooks of every scheduled pipeline (`--notify`); each pipeline's own `notify:` adds to them. */
  notify?: readonly NotifyTarget[] | undefined;
  /** After each run (e.g. pushing a pipeline's `sheet:` output); returns lines to log. */
  afterRun?:
    | ((
        w: Warehouse,
        sp: ScheduledPipeline,
        summary: RunSummary,
        params: Record<string, ParamValue[]>,
      ) => Promise<string[]>)
    | undefined;
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

/** The webhooks of a scheduled pipeline: the scheduler's and its own `schedule.notify`. */
export function notifyOf(ctx: Pick<TickContext, "notify">, sp: ScheduledPipeline): NotifyTarget[] {
  return uniqueTargets([...(ctx.notify ?? []), ...(sp.notify ?? [])]);
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
  const w = ctx.warehouse;
  const name = sp.pipeline.name;
  const when = `${name} @ ${formatInZone(tickAt, sp.schedule.timezone)} ${sp.schedule.timezone}`;
  const about = { pipeline: name, tickAt: tickAt.toISOString() };
  const notify = notifyOf(ctx, sp);
  if (!(await claimTick(w, { pipeline: name, tickAt, status, owner: ctx.owner }))) return { kind: "taken" };
  await advanceChecked(w, name, tickAt);

  const skip = async (reason: string): Promise<TickOutcome> => {
    await updateTick(w, name, tickAt, { status: "skipped", note: reason, finished: true }, notify);
    ctx.log(`${when}: skipped: ${reason}`, { event: "schedule.skipped", level: "warn", ...about });
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

  ctx.log(`${when}: ${status === "caught-up" ? "catching up" : "starting"}`, {
    event: "schedule.tick",
    ...about,
    status,
  });
  const beat = setInterval(() => void beatSlot(w, name, tickAt).catch(() => {}), HEARTBEAT_MS);
  beat.unref();
  let runId: string | null = null;
  let runStatus: string;
  let failed: boolean | undefined;
  let note: string | undefined;
  try {
    const params = paramsForTick(sp, tickAt);
    const s = await (ctx.run ?? runPipelines)({
      warehouse: w,
      client: ctx.client,
      pipelines: [sp.pipeline],
      params,
      maxCredits: sp.schedule.maxCredits,
      concurrency: sp.schedule.concurrency,
      prices: ctx.prices,
      trigger: "schedule",
      signal: ctx.signal,
      notify,
      sheet: ctx.sheet,
      onStart: (id, resumed) =>
        ctx.log(`${when}: run ${id}${resumed ? " (resumed)" : ""} started`, {
          event: "schedule.run.started",
          ...about,
          runId: id,
          resumed,
        }),
    });
    runId = s.runId;
    runStatus = s.status;
    // Rejected records are told (outcome `warnings`), not a failure that pauses the schedule.
    failed =
      s.status === "failed" ? true : s.status === "succeeded" || s.status === "warnings" ? false : undefined;
    note = s.stopReason ?? s.failures[0]?.message;
    const c = s.counters;
    ctx.log(
      `${when}: run ${s.runId}${s.resumed ? " (resumed)" : ""} ${s.status}: ${c.callsDone}/${c.callsPlanned} calls, ` +
        `${c.callsFailed} failed, ${c.creditsSpent} credits, ${c.rowsWritten} rows${note ? `; ${note}` : ""}`,
      {
        event: "schedule.run.finished",
        level: s.status === "succeeded" ? "info" : s.status === "failed" ? "error" : "warn",
        ...about,
        runId: s.runId,
        status: s.status,
        counters: c,
      },
    );
    for (const line of (await ctx.afterRun?.(w, sp, s, params)) ?? [])
      ctx.log(`${when}: ${line}`, { event: "schedule.output", ...about, runId: s.runId });
  } catch (err) {
    // Bad params, a broken warehouse, a load that failed: the run (if it started) is recorded failed.
    runStatus = "error";
    failed = true;
    note = redact(err instanceof Error ? err.message : String(err));
    ctx.log(`${when}: failed: ${note}`, { event: "schedule.run.failed", level: "error", ...about, runId });
  } finally {
    clearInterval(beat);
  }
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
      { event: "schedule.paused", level: "error", ...about, runId },
    );
  }
  return { kind: "ran", runId, status: runStatus, paused: after.paused };
}
