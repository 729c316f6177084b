import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { loadSchedules, type ScheduledPipeline } from "../../scheduler/load.js";
import { type Scheduler, type SchedulerOptions, startScheduler } from "../../scheduler/scheduler.js";
import { afterTest } from "../helpers/after-test.js";

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-sched-"));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A marketplace-search pipeline file with a schedule block (one call per keyword per run, never
 * served from the response store, so every run really calls the emulator).
 */
export function writeScheduledPipeline(
  dir: string,
  o: { name?: string; cron?: string; schedule?: string; params?: string } = {},
): string {
  const name = o.name ?? "sched-search";
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
skill: marketplace-search
params:
  keyword: { repeatable: true, required: true }
  day: { type: date }
input:
  name: keyword
  from: { param: keyword }
request:
  keyword: "{{keyword}}"
freshness: 0
records:
  path: products
  table: ${name.replaceAll("-", "_")}_rows
  mode: append
  columns:
    keyword: { from: $request.keyword }
    asin: text
schedule:
  cron: "${o.cron ?? "* * * * * *"}"
  params: ${o.params ?? "{ keyword: usb hub, day: yesterday }"}
${o.schedule ?? ""}`,
  );
  return file;
}

export async function openTracked(url: string): Promise<Warehouse> {
  const w = await openWarehouse(url);
  afterTest(() => w.close());
  return w;
}

/** Starts a scheduler that is stopped after the test even when an assertion fails first. */
export async function startTracked(
  o: Omit<SchedulerOptions, "schedules"> & { files: string[] },
): Promise<{ scheduler: Scheduler; lines: string[]; schedules: ScheduledPipeline[] }> {
  const lines: string[] = [];
  const schedules = loadSchedules(o.files);
  const scheduler = await startScheduler({ ...o, schedules, log: (l) => lines.push(l) });
  afterTest(() => scheduler.stop(0));
  return { scheduler, lines, schedules };
}

export { until } from "../helpers/until.js";

export async function ticksOf(w: Warehouse, pipeline = "sched-search") {
  return w.db
    .selectFrom("skillsync_schedule_ticks")
    .selectAll()
    .where("pipeline", "=", pipeline)
    .orderBy("tick_at")
    .execute();
}

export async function runsOf(w: Warehouse) {
  return w.db.selectFrom("skillsync_runs").selectAll().orderBy("started_at").execute();
}
