import type { Command } from "commander";
import type { WorkQueue } from "../../connectors/queue/work-queue.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import type { Log } from "../../core/log.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { uniqueTargets } from "../../engine/notify/config.js";
import { startDelivery } from "../../engine/notify/loop.js";
import { sheetsForRun } from "../../engine/start/start-run.js";
import { loadSchedules, type ScheduledPipeline } from "../../scheduler/load.js";
import { type Scheduler, startScheduler } from "../../scheduler/scheduler.js";
import { sheetScheduleSpec, watchSheetSchedules } from "../../scheduler/sheet-schedules.js";
import type { ScheduleSpec } from "../../schema/schedule.js";
import { formatInZone, nextTimes } from "../../schema/schedule-times.js";
import { migrateToLatest } from "../../store/migrate.js";
import { pauseSchedule, readStates, resumeSchedule, type ScheduleState } from "../../store/schedule-state.js";
import { liveSheetSchedules, type SheetSchedule, sheetScheduleKey } from "../../store/sheet-schedules.js";
import {
  dbOption,
  makeClient,
  numberFlag,
  pricesOption,
  UsageError,
  withReadDb,
  withWarehouse,
} from "../context.js";
import { firstSignal } from "../daemon.js";
import { cliLog } from "../log.js";
import { notifyTargets, withNotifyOption } from "../notify-option.js";
import { printJson, printLine } from "../output.js";
import { type RateFlags, rateSettings, withRateOptions } from "../rate-option.js";
import { withUnpricedOption } from "../unpriced-option.js";
import { openWorkers, type WorkersFlags, withWorkersOptions, workersFlags } from "../workers-option.js";

interface ScheduleFlags extends WorkersFlags, RateFlags {
  db?: string;
  list?: boolean;
  json?: boolean;
  grace: string;
  baseUrl?: string;
  prices?: string;
  next: string;
  readDb?: string;
  notify?: string;
  allowUnpriced?: boolean;
}

function describe(sp: ScheduledPipeline, state: ScheduleState | undefined, count: number) {
  return describeSpec(
    sp.pipeline.name,
    sp.pipeline.name,
    { file: sp.pipeline.file },
    sp.schedule,
    state,
    count,
  );
}

/** A schedule made from a spreadsheet: the tab it refreshes instead of a file (none if it no longer parses). */
function describeSheet(s: SheetSchedule, state: ScheduleState | undefined, count: number) {
  const spec = sheetScheduleSpec(s);
  const where = { spreadsheet: s.spreadsheet, tab: s.tab };
  return spec ? [describeSpec(sheetScheduleKey(s.id), s.pipeline, where, spec, state, count)] : [];
}

function describeSpec(
  key: string,
  pipeline: string,
  where: Record<string, string>,
  spec: Pick<ScheduleSpec, "cron" | "timezone" | "maxFailures">,
  state: ScheduleState | undefined,
  count: number,
) {
  const { cron, timezone, maxFailures } = spec;
  return {
    schedule: key,
    pipeline,
    ...where,
    cron,
    timezone,
    next: nextTimes(cron, timezone, count).map((d) => `${formatInZone(d, timezone)}`),
    paused: state?.paused ?? false,
    pausedReason: state?.pausedReason ?? null,
    consecutiveFailures: state?.consecutiveFailures ?? 0,
    maxFailures,
    lastTickAt: state?.lastTickAt ?? null,
    lastStatus: state?.lastStatus ?? null,
    lastRunId: state?.lastRunId ?? null,
  };
}

async function listSchedules(schedules: ScheduledPipeline[], flags: ScheduleFlags): Promise<void> {
  const count = numberFlag("--next", flags.next, { integer: true, min: 1 }) ?? 3;
  const { states, sheets } = await withWarehouse(dbOption(flags), async (w) => {
    await migrateToLatest(w);
    return { states: await readStates(w), sheets: await liveSheetSchedules(w) };
  });
  const stateOf = (key: string) => states.find((s) => s.pipeline === key);
  const rows = [
    ...schedules.map((sp) => describe(sp, stateOf(sp.pipeline.name), count)),
    // Made from the add-on (POST /schedules): every serve on the warehouse fires them.
    ...sheets.flatMap((s) => describeSheet(s, stateOf(sheetScheduleKey(s.id)), count)),
  ];
  if (flags.json) return printJson(rows);
  for (const r of rows) {
    const state = r.paused
      ? `PAUSED (${r.pausedReason ?? "by hand"}); resume: skillsync schedule resume ${r.schedule}`
      : `active, ${r.consecutiveFailures}/${r.maxFailures} failures in a row`;
    const name = "tab" in r ? `${r.schedule} (${r.pipeline} → tab "${r.tab}")` : r.pipeline;
    printLine(`${name}  ${r.cron}  (${r.timezone})  ${state}`);
    printLine(`  next: ${r.next.join(", ")}`);
    if (r.lastTickAt)
      printLine(`  last: ${r.lastTickAt.slice(0, 19)}Z ${r.lastStatus ?? ""} ${r.lastRunId ?? ""}`.trimEnd());
  }
}

async function runScheduler(schedules: ScheduledPipeline[], flags: ScheduleFlags): Promise<void> {
  const grace = numberFlag("--grace", flags.grace, { min: 0 }) ?? 30;
  const prices = pricesOption(flags.prices);
  const workers = workersFlags(flags, dbOption(flags));
  const notify = notifyTargets(flags);
  const client = makeClient(flags.baseUrl, rateSettings(flags));
  const signals = firstSignal();
  const log = cliLog();
  const w = await openWarehouse(dbOption(flags), { readUrl: flags.readDb });
  // Before the notification loop's first look at the outbox (a new warehouse has no tables yet).
  await migrateToLatest(w);
  let pool: Awaited<ReturnType<typeof openWorkers>>;
  // Delivers the events of `--notify` and of every pipeline's `schedule.notify`.
  const delivery = startDelivery(w, uniqueTargets([...notify, ...schedules.flatMap((s) => s.notify ?? [])]), {
    log,
  });
  try {
    pool = await openWorkers(workers);
    // Sheet inputs and `sheet:` outputs, as `skillsync run` has them, when Google credentials are set.
    const sheets = await sheetsForRun();
    const scheduler = await startScheduler({
      warehouse: w,
      client,
      schedules,
      prices,
      log,
      sheet: sheets.reader,
      sheets: sheets.connector,
      pushOutputs: true,
      workers: pool?.options,
      allowUnpriced: flags.allowUnpriced,
      notify,
    });
    logSchedules(log, w, schedules, pool?.queue);
    const watch = await watchKnownSheetSchedules(scheduler, w, schedules, log);
    log("running; stop with SIGTERM or Ctrl-C", { event: "schedule.running" });
    const name = await signals.signal;
    await watch.stop();
    await stopScheduler(scheduler, log, name, grace);
  } finally {
    signals.dispose();
    await delivery.stop();
    await pool?.queue.close();
    await client.close();
    await w.close();
  }
}

/** What the scheduler fires, and when next. */
function logSchedules(
  log: Log,
  w: Warehouse,
  schedules: ScheduledPipeline[],
  queue: WorkQueue | undefined,
): void {
  log(
    `scheduling ${schedules.length} pipeline(s) on ${w.description}${queue ? `; calls queued for workers (${queue.schema})` : ""}:`,
    { event: "schedule.started", warehouse: w.description, pipelines: schedules.length },
  );
  for (const sp of schedules) {
    const { cron, timezone } = sp.schedule;
    const next = nextTimes(cron, timezone, 1)[0];
    log(
      `  ${sp.pipeline.name}: ${cron} (${timezone}), next ${next ? formatInZone(next, timezone) : "never"}`,
      {
        event: "schedule.next",
        pipeline: sp.pipeline.name,
        cron,
        timezone,
        next: next?.toISOString() ?? null,
      },
    );
  }
}

/** Tabs refreshed from the add-on (POST /schedules) whose pipeline is a built-in or one of these. */
function watchKnownSheetSchedules(
  scheduler: Scheduler,
  w: Warehouse,
  schedules: ScheduledPipeline[],
  log: Log,
) {
  const known = [...listBuiltinPipelines().map((f) => loadPipeline(f)), ...schedules.map((s) => s.pipeline)];
  return watchSheetSchedules({
    scheduler,
    warehouse: w,
    pipelines: new Map(known.map((p) => [p.name, p])),
    log,
  });
}

/** No new ticks; the runs in flight get `grace` seconds to finish, and the log says how they ended. */
async function stopScheduler(scheduler: Scheduler, log: Log, name: string, grace: number): Promise<void> {
  log(
    `${name}: no new ticks; ${scheduler.running()} run(s) in flight stop dispatching, calls in flight ` +
      `finish (grace ${grace}s; ${name === "SIGINT" ? "Ctrl-C" : "a second signal"} again to quit now)`,
    { event: "schedule.stopping", signal: name, inFlight: scheduler.running(), graceSeconds: grace },
  );
  const summary = await scheduler.stop(grace * 1000);
  log(
    summary.forced.length
      ? `stopped; ${summary.forced.length} run(s) did not end in time and were marked interrupted: ${summary.forced.join(", ")}`
      : `stopped; ${summary.inFlight} run(s) were in flight and recorded their outcome`,
    { event: "schedule.stopped", level: summary.forced.length ? "warn" : "info", ...summary },
  );
}

export function registerScheduleCommand(program: Command): void {
  const schedule = withReadDb(program.command("schedule"))
    .description("run pipelines on their schedule: blocks (a long-running process), or list/resume them")
    .argument(
      "[pipelines...]",
      "pipeline files with a schedule: block, or folders of them (default ./pipelines)",
    )
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .option("--list", "print each scheduled pipeline with its next run times and whether it is paused")
    .option("--next <n>", "with --list: how many next run times", "3")
    .option("--json", "with --list: print JSON")
    .option("--grace <seconds>", "on SIGTERM/SIGINT, how long calls in flight may take to finish", "30")
    .option(
      "--prices <file>",
      "YAML price table: slug: credits-per-call, or slug: { perItem: n } (default SKILLSYNC_PRICES)",
    )
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)");
  withUnpricedOption(withRateOptions(withNotifyOption(withWorkersOptions(schedule)))).action(
    async (refs: string[], flags: ScheduleFlags) => {
      const schedules = loadSchedules(refs, { notify: !flags.list });
      if (flags.list) return listSchedules(schedules, flags);
      return runScheduler(schedules, flags);
    },
  );
  schedule
    .command("resume")
    .description("un-pause a schedule paused after failed runs in a row (and reset its failure count)")
    .argument("<pipeline>", "the pipeline's name")
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .action((name: string, flags: { db?: string }) =>
      withWarehouse(dbOption({ db: flags.db ?? schedule.opts<ScheduleFlags>().db }), async (w) => {
        await migrateToLatest(w);
        const before = (await readStates(w, [name]))[0];
        if (!before || !(await resumeSchedule(w, name))) {
          const known = (await readStates(w)).map((s) => s.pipeline);
          throw new UsageError(
            `no schedule named "${name}" in this warehouse (known: ${known.join(", ") || "none yet"})`,
          );
        }
        printLine(
          before.paused
            ? `resumed ${name} (was paused: ${before.pausedReason ?? "by hand"}); failure count reset`
            : `${name} was not paused; failure count reset (was ${before.consecutiveFailures})`,
        );
      }),
    );
  registerPause(schedule);
}

/** `schedule pause NAME`: every scheduler on the warehouse skips its ticks until `schedule resume`. */
function registerPause(schedule: Command): void {
  schedule
    .command("pause")
    .description("pause a schedule: no scheduler on the warehouse fires it until `schedule resume`")
    .argument("<pipeline>", "the pipeline's name, or sheet:<id> for a schedule made from a spreadsheet")
    .option("--reason <text>", "why, as --list and the console show it", "paused by hand")
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .action((name: string, flags: { db?: string; reason: string }) =>
      withWarehouse(dbOption({ db: flags.db ?? schedule.opts<ScheduleFlags>().db }), async (w) => {
        await migrateToLatest(w);
        const known = await knownSchedules(w);
        // A state row is made on pause: a typo must not become a schedule of its own.
        if (!known.includes(name))
          throw new UsageError(
            `no schedule named "${name}" in this warehouse (known: ${known.join(", ") || "none yet"})`,
          );
        const was = (await readStates(w, [name]))[0];
        printLine(
          (await pauseSchedule(w, name, flags.reason))
            ? `paused ${name}; resume: skillsync schedule resume ${name}`
            : `${name} was already paused (${was?.pausedReason ?? "by hand"})`,
        );
      }),
    );
}

/** The schedules a warehouse knows: those a scheduler has fired, the sheet schedules, the built-ins and ./pipelines with a schedule. */
async function knownSchedules(w: Warehouse): Promise<string[]> {
  const files = [...listBuiltinPipelines().map((f) => loadPipeline(f))];
  let local: string[] = [];
  try {
    local = loadSchedules([], { notify: false }).map((s) => s.pipeline.name);
  } catch (err) {
    // No ./pipelines folder here, or none of it scheduled: the warehouse's own names remain.
    if (!(err instanceof ValidationError)) throw err;
  }
  return [
    ...new Set([
      ...(await readStates(w)).map((s) => s.pipeline),
      ...(await liveSheetSchedules(w)).map((s) => sheetScheduleKey(s.id)),
      ...files.filter((p) => p.schedule).map((p) => p.name),
      ...local,
    ]),
  ];
}
