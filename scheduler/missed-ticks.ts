import { formatInZone, pastTicks } from "../schema/schedule-times.js";
import { advanceChecked, claimTick, readState } from "../store/schedule-state.js";
import { type ScheduledPipeline, scheduleKey } from "./load.js";
import { notifyOf, type TickContext } from "./tick.js";

/** A tick this close behind the start is simply due, not missed. */
const DUE_MS = 2000;

type MissedContext = Pick<TickContext, "warehouse" | "owner" | "log" | "notify">;

/** Records a tick node-cron could not fire in time (a busy machine) as missed. */
export function recordLateTick(ctx: MissedContext, sp: ScheduledPipeline, tickAt: Date): void {
  void claimTick(
    ctx.warehouse,
    {
      pipeline: scheduleKey(sp),
      tickAt,
      status: "missed",
      owner: ctx.owner,
      note: "the scheduler was too busy to fire it in time",
    },
    notifyOf(ctx, sp),
  ).catch(() => {});
}

/**
 * Reports the ticks a schedule missed while no scheduler ran. A tick just due is launched; of
 * the missed ones, the latest is caught up once where `catchUp` is set, else recorded as missed.
 */
export async function checkMissed(
  ctx: MissedContext,
  sp: ScheduledPipeline,
  now: Date,
  launch: (tickAt: Date, status: "fired" | "caught-up") => void,
): Promise<void> {
  const name = scheduleKey(sp);
  const { cron: expr, timezone } = sp.schedule;
  const state = await readState(ctx.warehouse, name);
  if (!state?.checkedAt) return;
  const checked = new Date(state.checkedAt);
  let missed = pastTicks(expr, timezone, checked, now);
  const due = missed.latest && now.getTime() - missed.latest.getTime() < DUE_MS ? missed.latest : undefined;
  if (due) {
    launch(due, "fired");
    missed = pastTicks(expr, timezone, checked, new Date(due.getTime() - 1));
  }
  if (!missed.latest) return;
  const latest = missed.latest;
  const count = `${missed.count}${missed.more ? "+" : ""}`;
  const what = `${name}: ${count} tick(s) missed while no scheduler ran (latest ${formatInZone(latest, timezone)} ${timezone})`;
  const fields = {
    event: "schedule.missed",
    level: "warn",
    pipeline: name,
    missed: count,
    latest: latest.toISOString(),
  } as const;
  if (state.paused) return ctx.log(`${what}; the schedule is paused, not catching up`, fields);
  if (sp.schedule.catchUp) {
    ctx.log(`${what}; catching up the latest once`, { ...fields, catchUp: true });
    return launch(latest, "caught-up");
  }
  ctx.log(`${what}; not caught up (set schedule.catchUp: true to run the latest at start)`, fields);
  const earlier = missed.count > 1 ? `; ${count} missed since ${checked.toISOString()}` : "";
  await claimTick(
    ctx.warehouse,
    { pipeline: name, tickAt: latest, status: "missed", owner: ctx.owner, note: `not caught up${earlier}` },
    notifyOf(ctx, sp),
  );
  await advanceChecked(ctx.warehouse, name, latest);
}
