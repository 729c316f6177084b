import { type ScheduledPipeline, scheduleKey, scheduleLabel } from "./load.js";
import type { InFlightTick } from "./shutdown.js";
import { runTick, type TickContext, type TickOutcome } from "./tick.js";

/** What a scheduler did with one tick it saw (taken: another scheduler claimed it). */
export interface TickRecord {
  pipeline: string;
  key: string;
  tickAt: Date;
  outcome: TickOutcome;
}

/** Starts each tick's run and keeps count of the runs going and of what each tick came to. */
export class TickLauncher {
  /** The ticks going, by the promise that settles when each has ended. */
  readonly inFlight = new Map<Promise<void>, InFlightTick>();
  readonly ticks: TickRecord[] = [];
  private stopped = false;

  constructor(private readonly ctx: TickContext) {}

  /** The scheduler is stopping: no more ticks. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** Launches no tick from now on; a tick that fails from now on was cut by the stop, not logged. */
  stop(): void {
    this.stopped = true;
  }

  /** Runs one tick of the schedule in the background (nothing once stopping). */
  launch(sp: ScheduledPipeline, tickAt: Date, status: "fired" | "caught-up"): void {
    if (this.stopped) return;
    const p: Promise<void> = runTick(this.ctx, sp, tickAt, status)
      .then((outcome) => {
        this.ticks.push({ pipeline: sp.pipeline.name, key: scheduleKey(sp), tickAt, outcome });
      })
      .catch((err: unknown) => {
        if (!this.stopped)
          this.ctx.log(`${scheduleLabel(sp)}: tick ${tickAt.toISOString()} failed: ${String(err)}`, {
            event: "schedule.tick.failed",
            level: "error",
            pipeline: sp.pipeline.name,
            tickAt: tickAt.toISOString(),
          });
      })
      .finally(() => this.inFlight.delete(p));
    this.inFlight.set(p, {
      pipeline: sp.pipeline.name,
      key: scheduleKey(sp),
      tickAt,
      maxFailures: sp.schedule.maxFailures,
    });
  }
}
