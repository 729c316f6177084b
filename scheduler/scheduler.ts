import { hostname } from "node:os";
import cron, { type ScheduledTask, type TaskContext } from "node-cron";
import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { type Log, silentLog } from "../core/log.js";
import type { SheetReader } from "../engine/define/inputs.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { NotifyTarget } from "../engine/notify/config.js";
import type { RunPipelines, SkillCaller } from "../engine/run/runner.js";
import { crontabParts } from "../schema/crontab.js";
import { formatInZone, pastTicks } from "../schema/schedule-times.js";
import { migrateToLatest } from "../store/migrate.js";
import { advanceChecked, claimTick, ensureStates, type Owner, readState } from "../store/schedule-state.js";
import { type ScheduledPipeline, scheduleKey, scheduleLabel } from "./load.js";
import { type InFlightTick, interruptLeftovers, settleWithin } from "./shutdown.js";
import { notifyOf, runTick, type TickContext, type TickOutcome } from "./tick.js";

export interface SchedulerOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  schedules: ScheduledPipeline[];
  /** One event per tick, run, skip and missed tick (`schedule.*`); default: nothing. */
  log?: Log | undefined;
  prices?: PriceTable | undefined;
  sheet?: SheetReader | undefined;
  /** Where sheet schedules push their rows and notes (undefined: Google Sheets is not configured). */
  sheets?: SheetsConnector | undefined;
  afterRun?: TickContext["afterRun"];
  /** Runs each tick's pipeline (default in this process; `--workers`: the workers make the calls). */
  run?: RunPipelines | undefined;
  /** Who this scheduler is in the tick and state rows (default this host and pid). */
  owner?: Owner | undefined;
  /** Webhooks told of every scheduled pipeline's events (`--notify`; docs/notifications.md). */
  notify?: readonly NotifyTarget[] | undefined;
}

interface TickRecord {
  pipeline: string;
  key: string;
  tickAt: Date;
  outcome: TickOutcome;
}

interface StopSummary {
  /** Runs that were going when the stop began. */
  inFlight: number;
  /** Runs that had not ended after the grace period and were marked interrupted by the scheduler. */
  forced: string[];
}

export interface Scheduler {
  /** The schedules it fires now (those added later included, those removed left out). */
  readonly schedules: ScheduledPipeline[];
  /** Starts firing one more schedule (a sheet schedule made while running); its ticks count from now. */
  add(sp: ScheduledPipeline): Promise<void>;
  /** Stops firing a schedule, by its key (scheduleKey); a run of it already going goes on. */
  remove(key: string): Promise<void>;
  /** What this scheduler did with each tick it saw (taken: another scheduler claimed it). */
  readonly ticks: readonly TickRecord[];
  /** Runs going now. */
  running(): number;
  /** Stops taking ticks, lets calls in flight finish (at most `graceMs`), records the state. */
  stop(graceMs?: number): Promise<StopSummary>;
}

/** A tick this close behind the start is simply due, not missed. */
const DUE_MS = 2000;
/** After the grace period, calls in flight are cut; the runs then get this long to record that. */
const SETTLE_MS = 3000;

const floorSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

/**
 * Starts scheduling: migrates the warehouse, reports ticks missed while no scheduler ran (and
 * catches the latest up once where `catchUp` is set), then runs each pipeline on its cron.
 *
 * @example
 * const s = await startScheduler({ warehouse, client, schedules: loadSchedules(["pipelines/"]), log: textLog() });
 * process.once("SIGTERM", () => void s.stop(30_000).then(() => process.exit(0)));
 */
export async function startScheduler(o: SchedulerOptions): Promise<Scheduler> {
  const w = o.warehouse;
  const log = o.log ?? silentLog;
  const owner = o.owner ?? { host: hostname(), pid: process.pid };
  const soft = new AbortController();
  const hard = new AbortController();
  // Runs stop dispatching on `soft`; calls already sent are only cut on `hard`, after the grace period.
  const client: SkillCaller = {
    prepare: o.client.prepare.bind(o.client),
    send: (prepared) => o.client.send(prepared, { signal: hard.signal }),
  };
  const ctx: TickContext = {
    warehouse: w,
    client,
    owner,
    signal: soft.signal,
    log,
    prices: o.prices,
    sheet: o.sheet,
    sheets: o.sheets,
    afterRun: o.afterRun,
    run: o.run,
    notify: o.notify,
  };
  const inFlight = new Map<Promise<void>, InFlightTick>();
  const ticks: TickRecord[] = [];
  const tasks = new Map<string, ScheduledTask[]>();
  const schedules = [...o.schedules];
  let stopping = false;

  const launch = (sp: ScheduledPipeline, tickAt: Date, status: "fired" | "caught-up") => {
    if (stopping) return;
    const p: Promise<void> = runTick(ctx, sp, tickAt, status)
      .then((outcome) => {
        ticks.push({ pipeline: sp.pipeline.name, key: scheduleKey(sp), tickAt, outcome });
      })
      .catch((err: unknown) => {
        if (!stopping)
          log(`${scheduleLabel(sp)}: tick ${tickAt.toISOString()} failed: ${String(err)}`, {
            event: "schedule.tick.failed",
            level: "error",
            pipeline: sp.pipeline.name,
            tickAt: tickAt.toISOString(),
          });
      })
      .finally(() => inFlight.delete(p));
    inFlight.set(p, {
      pipeline: sp.pipeline.name,
      key: scheduleKey(sp),
      tickAt,
      maxFailures: sp.schedule.maxFailures,
    });
  };

  await migrateToLatest(w);
  await ensureStates(w, schedules.map(scheduleKey));
  const quiet = {
    info() {},
    warn() {},
    debug() {},
    error: (m: string | Error) =>
      log(`node-cron: ${m instanceof Error ? m.message : m}`, { event: "schedule.error", level: "error" }),
  };
  const startTask = async (
    sp: ScheduledPipeline,
    expr: string,
    i: number,
    fired: (c: TaskContext) => void,
  ): Promise<ScheduledTask> => {
    const task = cron.createTask(expr, fired, {
      timezone: sp.schedule.timezone,
      name: `skillsync:${scheduleKey(sp)}${i ? `:${i}` : ""}`,
      logger: quiet,
      // A late timer (a busy machine) still fires its tick; node-cron reports only really lost ones.
      missedExecutionTolerance: 30_000,
    });
    task.on("execution:missed", (c) => {
      const tickAt = floorSecond(c.date);
      void claimTick(
        w,
        {
          pipeline: scheduleKey(sp),
          tickAt,
          status: "missed",
          owner,
          note: "the scheduler was too busy to fire it in time",
        },
        notifyOf(ctx, sp),
      ).catch(() => {});
    });
    await task.start();
    return task;
  };
  const startTasks = async (sp: ScheduledPipeline): Promise<void> => {
    // Crontab's "day of month OR day of week" is two node-cron tasks; a day matching both fires them
    // both for one instant, launched once.
    let last = 0;
    const fired = (c: TaskContext) => {
      const tickAt = floorSecond(c.date);
      if (tickAt.getTime() === last) return;
      last = tickAt.getTime();
      launch(sp, tickAt, "fired");
    };
    const mine: ScheduledTask[] = [];
    for (const [i, part] of crontabParts(sp.schedule.cron).entries())
      mine.push(await startTask(sp, part, i, fired));
    tasks.set(scheduleKey(sp), mine);
  };
  for (const sp of schedules) await startTasks(sp);
  const startedAt = new Date();
  for (const sp of schedules) await checkMissed(sp, startedAt);

  async function checkMissed(sp: ScheduledPipeline, now: Date): Promise<void> {
    const name = scheduleKey(sp);
    const { cron: expr, timezone } = sp.schedule;
    const state = await readState(w, name);
    if (!state?.checkedAt) return;
    const checked = new Date(state.checkedAt);
    let missed = pastTicks(expr, timezone, checked, now);
    const due = missed.latest && now.getTime() - missed.latest.getTime() < DUE_MS ? missed.latest : undefined;
    if (due) {
      launch(sp, due, "fired");
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
    if (state.paused) return log(`${what}; the schedule is paused, not catching up`, fields);
    if (sp.schedule.catchUp) {
      log(`${what}; catching up the latest once`, { ...fields, catchUp: true });
      return launch(sp, latest, "caught-up");
    }
    log(`${what}; not caught up (set schedule.catchUp: true to run the latest at start)`, fields);
    const earlier = missed.count > 1 ? `; ${count} missed since ${checked.toISOString()}` : "";
    await claimTick(
      w,
      { pipeline: name, tickAt: latest, status: "missed", owner, note: `not caught up${earlier}` },
      notifyOf(ctx, sp),
    );
    await advanceChecked(w, name, latest);
  }

  let stopped: Promise<StopSummary> | undefined;
  return {
    schedules,
    ticks,
    running: () => inFlight.size,
    async add(sp) {
      const key = scheduleKey(sp);
      if (stopping || tasks.has(key)) return;
      tasks.set(key, []);
      schedules.push(sp);
      await ensureStates(w, [key]);
      await startTasks(sp);
      await checkMissed(sp, new Date());
    },
    async remove(key) {
      const mine = tasks.get(key);
      if (!mine) return;
      tasks.delete(key);
      schedules.splice(
        schedules.findIndex((s) => scheduleKey(s) === key),
        1,
      );
      for (const t of mine) await t.destroy();
    },
    stop(graceMs = 30_000) {
      stopped ??= (async () => {
        stopping = true;
        for (const t of [...tasks.values()].flat()) await t.destroy();
        const going = inFlight.size;
        soft.abort();
        let forced: string[] = [];
        if (!(await settleWithin(inFlight.keys(), graceMs))) {
          hard.abort(new Error("the scheduler's grace period ended"));
          if (!(await settleWithin(inFlight.keys(), SETTLE_MS))) {
            forced = await interruptLeftovers(w, owner, [...inFlight.values()]);
          }
        }
        const now = new Date();
        for (const sp of schedules) await advanceChecked(w, scheduleKey(sp), now);
        return { inFlight: going, forced };
      })();
      return stopped;
    },
  };
}
