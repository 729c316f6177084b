import { hostname } from "node:os";
import type { ScheduledTask } from "node-cron";
import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { type Log, silentLog } from "../core/log.js";
import type { SheetReader } from "../engine/define/inputs.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { NotifyTarget } from "../engine/notify/config.js";
import type { SkillCaller, StartRun, WorkersOptions } from "../engine/start/start-run.js";
import { migrateToLatest } from "../store/migrate.js";
import { advanceChecked, ensureStates, type Owner } from "../store/schedule-state.js";
import { startCronTasks } from "./cron-tasks.js";
import { type ScheduledPipeline, scheduleKey } from "./load.js";
import { checkMissed, recordLateTick } from "./missed-ticks.js";
import { drainTicks } from "./shutdown.js";
import type { TickContext } from "./tick.js";
import { TickLauncher, type TickRecord } from "./tick-launcher.js";

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
  /** Each run pushes its pipeline's `sheet:` outputs to `sheets` (`skillsync schedule`; not serve's sheet schedules). */
  pushOutputs?: boolean | undefined;
  /** `--workers`: each tick's calls are queued for `skillsync worker` processes (default: made here). */
  workers?: WorkersOptions | undefined;
  /** `--allow-unpriced`: a tick whose ceiling cannot bind an operation runs, with a warning. */
  allowUnpriced?: boolean | undefined;
  /** Starts each tick's run (default startRun; a test's stand-in, e.g. under a fake clock). */
  run?: StartRun | undefined;
  /** Who this scheduler is in the tick and state rows (default this host and pid). */
  owner?: Owner | undefined;
  /** Webhooks told of every scheduled pipeline's events (`--notify`; docs/notifications.md). */
  notify?: readonly NotifyTarget[] | undefined;
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

/** Runs stop dispatching on `soft`; calls already sent are only cut on `hard`, after the grace period. */
interface Aborts {
  soft: AbortController;
  hard: AbortController;
}

/**
 * Starts scheduling: migrates the warehouse, reports ticks missed while no scheduler ran (and
 * catches the latest up once where `catchUp` is set), then runs each pipeline on its cron.
 *
 * @example
 * const s = await startScheduler({ warehouse, client, schedules: loadSchedules(["pipelines/"]), log: textLog() });
 * process.once("SIGTERM", () => void s.stop(30_000).then(() => process.exit(0)));
 */
export async function startScheduler(o: SchedulerOptions): Promise<Scheduler> {
  const aborts = { soft: new AbortController(), hard: new AbortController() };
  const ctx = tickContext(o, aborts);
  await migrateToLatest(o.warehouse);
  const scheduler = new CronScheduler(ctx, aborts, [...o.schedules]);
  await scheduler.start();
  return scheduler;
}

/** What every tick runs with: the options, and a client whose calls in flight `hard` cuts. */
function tickContext(o: SchedulerOptions, aborts: Aborts): TickContext {
  const client: SkillCaller = {
    prepare: o.client.prepare.bind(o.client),
    send: (prepared) => o.client.send(prepared, { signal: aborts.hard.signal }),
  };
  return {
    warehouse: o.warehouse,
    client,
    owner: o.owner ?? { host: hostname(), pid: process.pid },
    signal: aborts.soft.signal,
    log: o.log ?? silentLog,
    prices: o.prices,
    sheet: o.sheet,
    sheets: o.sheets,
    pushOutputs: o.pushOutputs,
    workers: o.workers,
    allowUnpriced: o.allowUnpriced,
    run: o.run,
    notify: o.notify,
  };
}

/** The schedules' cron tasks, the ticks they launch, and the stop. */
class CronScheduler implements Scheduler {
  readonly ticks: readonly TickRecord[];
  private readonly launcher: TickLauncher;
  /** Each schedule's node-cron tasks, by scheduleKey. */
  private readonly tasks = new Map<string, ScheduledTask[]>();
  private stopped: Promise<StopSummary> | undefined;

  constructor(
    private readonly ctx: TickContext,
    private readonly aborts: Aborts,
    readonly schedules: ScheduledPipeline[],
  ) {
    this.launcher = new TickLauncher(ctx);
    this.ticks = this.launcher.ticks;
  }

  /** Fires the schedules given at start; then reports (or catches up) the ticks missed before. */
  async start(): Promise<void> {
    await ensureStates(this.ctx.warehouse, this.schedules.map(scheduleKey));
    for (const sp of this.schedules) await this.startTasks(sp);
    const startedAt = new Date();
    for (const sp of this.schedules) await this.checkMissed(sp, startedAt);
  }

  running(): number {
    return this.launcher.inFlight.size;
  }

  async add(sp: ScheduledPipeline): Promise<void> {
    const key = scheduleKey(sp);
    if (this.launcher.stopping || this.tasks.has(key)) return;
    this.tasks.set(key, []);
    this.schedules.push(sp);
    await ensureStates(this.ctx.warehouse, [key]);
    await this.startTasks(sp);
    await this.checkMissed(sp, new Date());
  }

  async remove(key: string): Promise<void> {
    const mine = this.tasks.get(key);
    if (!mine) return;
    this.tasks.delete(key);
    this.schedules.splice(
      this.schedules.findIndex((s) => scheduleKey(s) === key),
      1,
    );
    for (const t of mine) await t.destroy();
  }

  stop(graceMs = 30_000): Promise<StopSummary> {
    this.stopped ??= this.shutDown(graceMs);
    return this.stopped;
  }

  private async shutDown(graceMs: number): Promise<StopSummary> {
    this.launcher.stop();
    for (const t of [...this.tasks.values()].flat()) await t.destroy();
    const going = this.launcher.inFlight.size;
    const { warehouse: w, owner } = this.ctx;
    const forced = await drainTicks(w, owner, this.launcher.inFlight, this.aborts, graceMs);
    const now = new Date();
    for (const sp of this.schedules) await advanceChecked(w, scheduleKey(sp), now);
    return { inFlight: going, forced };
  }

  private async startTasks(sp: ScheduledPipeline): Promise<void> {
    const tasks = await startCronTasks(sp, {
      log: this.ctx.log,
      fire: (tickAt) => this.launcher.launch(sp, tickAt, "fired"),
      late: (tickAt) => recordLateTick(this.ctx, sp, tickAt),
    });
    this.tasks.set(scheduleKey(sp), tasks);
  }

  private checkMissed(sp: ScheduledPipeline, now: Date): Promise<void> {
    return checkMissed(this.ctx, sp, now, (tickAt, status) => this.launcher.launch(sp, tickAt, status));
  }
}
