import { hostname } from "node:os";
import cron, { type ScheduledTask } from "node-cron";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { SheetReader } from "../engine/define/inputs.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { RunPipelines, SkillCaller } from "../engine/run/runner.js";
import { migrateToLatest } from "../store/migrate.js";
import { advanceChecked, claimTick, ensureStates, type Owner, readState } from "../store/schedule-state.js";
import type { ScheduledPipeline } from "./load.js";
import { type InFlightTick, interruptLeftovers, settleWithin } from "./shutdown.js";
import { runTick, type TickContext, type TickOutcome } from "./tick.js";
import { formatInZone, pastTicks } from "./times.js";

export interface SchedulerOptions {
  warehouse: Warehouse;
  client: SkillCaller;
  schedules: ScheduledPipeline[];
  /** One line per event (ticks, runs, skips, missed ticks); default: nothing. */
  log?: ((line: string) => void) | undefined;
  prices?: PriceTable | undefined;
  sheet?: SheetReader | undefined;
  afterRun?: TickContext["afterRun"];
  /** Runs each tick's pipeline (default in this process; `--workers`: the workers make the calls). */
  run?: RunPipelines | undefined;
  /** Who this scheduler is in the tick and state rows (default this host and pid). */
  owner?: Owner | undefined;
}

export interface TickRecord {
  pipeline: string;
  tickAt: Date;
  outcome: TickOutcome;
}

export interface StopSummary {
  /** Runs that were going when the stop began. */
  inFlight: number;
  /** Runs that had not ended after the grace period and were marked interrupted by the scheduler. */
  forced: string[];
}

export interface Scheduler {
  readonly schedules: ScheduledPipeline[];
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
 * const s = await startScheduler({ warehouse, client, schedules: loadSchedules(["pipelines/"]), log: console.error });
 * process.once("SIGTERM", () => void s.stop(30_000).then(() => process.exit(0)));
 */
export async function startScheduler(o: SchedulerOptions): Promise<Scheduler> {
  const w = o.warehouse;
  const log = o.log ?? (() => {});
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
    afterRun: o.afterRun,
    run: o.run,
  };
  const inFlight = new Map<Promise<void>, InFlightTick>();
  const ticks: TickRecord[] = [];
  const tasks: ScheduledTask[] = [];
  let stopping = false;

  const launch = (sp: ScheduledPipeline, tickAt: Date, status: "fired" | "caught-up") => {
    if (stopping) return;
    const p: Promise<void> = runTick(ctx, sp, tickAt, status)
      .then((outcome) => {
        ticks.push({ pipeline: sp.pipeline.name, tickAt, outcome });
      })
      .catch((err: unknown) => {
        if (!stopping) log(`${sp.pipeline.name}: tick ${tickAt.toISOString()} failed: ${String(err)}`);
      })
      .finally(() => inFlight.delete(p));
    inFlight.set(p, { pipeline: sp.pipeline.name, tickAt, maxFailures: sp.schedule.maxFailures });
  };

  await migrateToLatest(w);
  await ensureStates(
    w,
    o.schedules.map((s) => s.pipeline.name),
  );
  const quiet = {
    info() {},
    warn() {},
    debug() {},
    error: (m: string | Error) => log(`node-cron: ${m instanceof Error ? m.message : m}`),
  };
  for (const sp of o.schedules) {
    const task = cron.createTask(sp.schedule.cron, (c) => launch(sp, floorSecond(c.date), "fired"), {
      timezone: sp.schedule.timezone,
      name: `skillsync:${sp.pipeline.name}`,
      logger: quiet,
      // A late timer (a busy machine) still fires its tick; node-cron reports only really lost ones.
      missedExecutionTolerance: 30_000,
    });
    task.on("execution:missed", (c) => {
      const tickAt = floorSecond(c.date);
      void claimTick(w, {
        pipeline: sp.pipeline.name,
        tickAt,
        status: "missed",
        owner,
        note: "the scheduler was too busy to fire it in time",
      }).catch(() => {});
    });
    tasks.push(task);
    await task.start();
  }
  const startedAt = new Date();
  for (const sp of o.schedules) await checkMissed(sp, startedAt);

  async function checkMissed(sp: ScheduledPipeline, now: Date): Promise<void> {
    const name = sp.pipeline.name;
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
    if (state.paused) return log(`${what}; the schedule is paused, not catching up`);
    if (sp.schedule.catchUp) {
      log(`${what}; catching up the latest once`);
      return launch(sp, latest, "caught-up");
    }
    log(`${what}; not caught up (set schedule.catchUp: true to run the latest at start)`);
    const earlier = missed.count > 1 ? `; ${count} missed since ${checked.toISOString()}` : "";
    await claimTick(w, {
      pipeline: name,
      tickAt: latest,
      status: "missed",
      owner,
      note: `not caught up${earlier}`,
    });
    await advanceChecked(w, name, latest);
  }

  let stopped: Promise<StopSummary> | undefined;
  return {
    schedules: o.schedules,
    ticks,
    running: () => inFlight.size,
    stop(graceMs = 30_000) {
      stopped ??= (async () => {
        stopping = true;
        for (const t of tasks) await t.destroy();
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
        for (const sp of o.schedules) await advanceChecked(w, sp.pipeline.name, now);
        return { inFlight: going, forced };
      })();
      return stopped;
    },
  };
}
