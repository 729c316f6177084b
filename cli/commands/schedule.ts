import type { Command } from "commander";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { sheetsForRun } from "../../engine/publish/sheets-push.js";
import { loadSchedules, type ScheduledPipeline } from "../../scheduler/load.js";
import { startScheduler } from "../../scheduler/scheduler.js";
import { formatInZone, nextTimes } from "../../scheduler/times.js";
import { migrateToLatest } from "../../store/migrate.js";
import { readStates, resumeSchedule, type ScheduleState } from "../../store/schedule-state.js";
import {
  dbOption,
  makeClient,
  numberFlag,
  pricesOption,
  UsageError,
  withReadDb,
  withWarehouse,
} from "../context.js";
import { firstSignal, logLine } from "../daemon.js";
import { printJson, printLine } from "../output.js";
import { openWorkers, type WorkersFlags, withWorkersOptions, workersFlags } from "../workers-option.js";

interface ScheduleFlags extends WorkersFlags {
  db?: string;
  list?: boolean;
  json?: boolean;
  grace: string;
  baseUrl?: string;
  prices?: string;
  next: string;
  readDb?: string;
}

function describe(sp: ScheduledPipeline, state: ScheduleState | undefined, count: number) {
  const { cron, timezone, maxFailures } = sp.schedule;
  return {
    pipeline: sp.pipeline.name,
    file: sp.pipeline.file,
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
  const states = await withWarehouse(dbOption(flags), async (w) => {
    await migrateToLatest(w);
    return readStates(w);
  });
  const rows = schedules.map((sp) =>
    describe(
      sp,
      states.find((s) => s.pipeline === sp.pipeline.name),
      count,
    ),
  );
  if (flags.json) return printJson(rows);
  for (const r of rows) {
    const state = r.paused
      ? `PAUSED (${r.pausedReason ?? "by hand"}); resume: skillsync schedule resume ${r.pipeline}`
      : `active, ${r.consecutiveFailures}/${r.maxFailures} failures in a row`;
    printLine(`${r.pipeline}  ${r.cron}  (${r.timezone})  ${state}`);
    printLine(`  next: ${r.next.join(", ")}`);
    if (r.lastTickAt)
      printLine(`  last: ${r.lastTickAt.slice(0, 19)}Z ${r.lastStatus ?? ""} ${r.lastRunId ?? ""}`.trimEnd());
  }
}

async function runScheduler(schedules: ScheduledPipeline[], flags: ScheduleFlags): Promise<void> {
  const grace = numberFlag("--grace", flags.grace, { min: 0 }) ?? 30;
  const prices = pricesOption(flags.prices);
  const workers = workersFlags(flags, dbOption(flags));
  const client = makeClient(flags.baseUrl);
  const signals = firstSignal();
  const w = await openWarehouse(dbOption(flags), { readUrl: flags.readDb });
  let pool: Awaited<ReturnType<typeof openWorkers>>;
  try {
    pool = await openWorkers(workers);
    // Sheet inputs and `sheet:` outputs, as `skillsync run` has them, when Google credentials are set.
    const sheets = await sheetsForRun();
    const scheduler = await startScheduler({
      warehouse: w,
      client,
      schedules,
      prices,
      log: logLine,
      sheet: sheets.reader,
      afterRun: (wh, sp, summary, params) => sheets.pushOutputs(wh, [sp.pipeline], summary, params),
      run: pool?.run,
    });
    logLine(
      `scheduling ${schedules.length} pipeline(s) on ${w.description}${pool ? `; calls queued for workers (${pool.queue.schema})` : ""}:`,
    );
    for (const sp of schedules) {
      const { cron, timezone } = sp.schedule;
      const next = nextTimes(cron, timezone, 1)[0];
      logLine(
        `  ${sp.pipeline.name}: ${cron} (${timezone}), next ${next ? formatInZone(next, timezone) : "never"}`,
      );
    }
    logLine("running; stop with SIGTERM or Ctrl-C");
    const name = await signals.signal;
    logLine(
      `${name}: no new ticks; ${scheduler.running()} run(s) in flight stop dispatching, calls in flight ` +
        `finish (grace ${grace}s; ${name === "SIGINT" ? "Ctrl-C" : "a second signal"} again to quit now)`,
    );
    const summary = await scheduler.stop(grace * 1000);
    logLine(
      summary.forced.length
        ? `stopped; ${summary.forced.length} run(s) did not end in time and were marked interrupted: ${summary.forced.join(", ")}`
        : `stopped; ${summary.inFlight} run(s) were in flight and recorded their outcome`,
    );
  } finally {
    signals.dispose();
    await pool?.queue.close();
    await client.close();
    await w.close();
  }
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
  withWorkersOptions(schedule).action(async (refs: string[], flags: ScheduleFlags) => {
    const schedules = loadSchedules(refs);
    if (flags.list) return listSchedules(schedules, flags);
    return runScheduler(schedules, flags);
  });
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
}
