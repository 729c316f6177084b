import type { Warehouse } from "../connectors/warehouse/open.js";
import type { Log } from "../core/log.js";
import type { LoadedPipeline } from "../engine/define/pipeline-file.js";
import { type ScheduleSpec, scheduleSchema } from "../schema/schedule.js";
import { liveSheetSchedules, type SheetSchedule, sheetScheduleKey } from "../store/sheet-schedules.js";
import type { ScheduledPipeline } from "./load.js";
import type { Scheduler } from "./scheduler.js";

/** How often a scheduler looks for schedules made or deleted from a sheet (on any server). */
const SYNC_MS = 5_000;

/** A stored sheet schedule as a `schedule:` block (a file's defaults); undefined if it no longer parses. */
export function sheetScheduleSpec(s: SheetSchedule): ScheduleSpec | undefined {
  const spec = scheduleSchema.safeParse({
    cron: s.cron,
    timezone: s.timezone,
    params: s.params,
    maxCredits: s.maxCredits,
  });
  return spec.success ? spec.data : undefined;
}

/** A stored sheet schedule as the scheduler runs it; undefined when this process lacks its pipeline. */
function scheduled(
  s: SheetSchedule,
  pipelines: ReadonlyMap<string, LoadedPipeline>,
): ScheduledPipeline | undefined {
  const pipeline = pipelines.get(s.pipeline);
  const schedule = sheetScheduleSpec(s);
  return pipeline && schedule ? { pipeline, schedule, sheet: s } : undefined;
}

/**
 * Keeps a scheduler firing exactly the warehouse's live sheet schedules (`POST /schedules`):
 * each one made since is added, each one deleted removed. A schedule whose pipeline this process
 * does not know is left to the servers that do (it never claims their ticks). `sync()` looks at
 * once (a schedule made or deleted through this process's server). A deletion seen late
 * costs nothing: a tick checks that its schedule is still live before it claims anything.
 *
 * @example const watch = await watchSheetSchedules({ scheduler, warehouse, pipelines, log });
 * // … on shutdown: await watch.stop();
 */
export async function watchSheetSchedules(o: {
  scheduler: Scheduler;
  warehouse: Warehouse;
  pipelines: ReadonlyMap<string, LoadedPipeline>;
  log: Log;
  everyMs?: number | undefined;
}): Promise<{ sync(): void; stop(): Promise<void> }> {
  const firing = new Set<string>();
  const sync = async () => {
    const live = await liveSheetSchedules(o.warehouse);
    const keys = new Set(live.map((s) => sheetScheduleKey(s.id)));
    for (const key of [...firing].filter((k) => !keys.has(k))) {
      firing.delete(key);
      await o.scheduler.remove(key);
      o.log(`${key}: deleted; no more ticks`, { event: "schedule.sheet.removed", schedule: key });
    }
    for (const s of live) {
      const key = sheetScheduleKey(s.id);
      const sp = firing.has(key) ? undefined : scheduled(s, o.pipelines);
      if (!sp) continue;
      firing.add(key);
      await o.scheduler.add(sp);
      o.log(`${key}: ${s.pipeline} → tab "${s.tab}" on ${s.cron} (${s.timezone})`, {
        event: "schedule.sheet.added",
        schedule: key,
        pipeline: s.pipeline,
      });
    }
  };
  await sync();
  let running = Promise.resolve();
  // One sync at a time, whoever asks: the timer, or a schedule made or deleted through this server.
  const again = () => {
    running = running.then(sync).catch((err: unknown) =>
      o.log(`sheet schedules: ${err instanceof Error ? err.message : String(err)}`, {
        event: "schedule.sheet.error",
        level: "error",
      }),
    );
  };
  const timer = setInterval(again, o.everyMs ?? SYNC_MS);
  timer.unref();
  return {
    sync: again,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
