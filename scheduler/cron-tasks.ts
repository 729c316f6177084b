import cron, { type ScheduledTask, type TaskContext } from "node-cron";
import type { Log } from "../core/log.js";
import { crontabParts } from "../schema/crontab.js";
import { type ScheduledPipeline, scheduleKey } from "./load.js";

/** A tick's instant: node-cron's date, to the whole second. */
const floorSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

/** node-cron's own messages: its errors go to the log as `schedule.error`, the rest nowhere. */
function cronLogger(log: Log) {
  return {
    info() {},
    warn() {},
    debug() {},
    error: (m: string | Error) =>
      log(`node-cron: ${m instanceof Error ? m.message : m}`, { event: "schedule.error", level: "error" }),
  };
}

/** What a schedule's cron tasks call: `fire` for each tick, `late` for a tick node-cron could not fire in time. */
export interface CronHandlers {
  log: Log;
  fire: (tickAt: Date) => void;
  late: (tickAt: Date) => void;
}

async function startTask(
  sp: ScheduledPipeline,
  expr: string,
  i: number,
  fired: (c: TaskContext) => void,
  h: CronHandlers,
): Promise<ScheduledTask> {
  const task = cron.createTask(expr, fired, {
    timezone: sp.schedule.timezone,
    name: `skillsync:${scheduleKey(sp)}${i ? `:${i}` : ""}`,
    logger: cronLogger(h.log),
    // A late timer (a busy machine) still fires its tick; node-cron reports only really lost ones.
    missedExecutionTolerance: 30_000,
  });
  task.on("execution:missed", (c) => h.late(floorSecond(c.date)));
  await task.start();
  return task;
}

/** Starts the node-cron tasks that fire a schedule's ticks; each instant is fired once. */
export async function startCronTasks(sp: ScheduledPipeline, h: CronHandlers): Promise<ScheduledTask[]> {
  // Crontab's "day of month OR day of week" is two node-cron tasks; a day matching both fires them
  // both for one instant, launched once.
  let last = 0;
  const fired = (c: TaskContext) => {
    const tickAt = floorSecond(c.date);
    if (tickAt.getTime() === last) return;
    last = tickAt.getTime();
    h.fire(tickAt);
  };
  const tasks: ScheduledTask[] = [];
  for (const [i, part] of crontabParts(sp.schedule.cron).entries())
    tasks.push(await startTask(sp, part, i, fired, h));
  return tasks;
}
