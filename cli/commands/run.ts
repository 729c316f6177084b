import type { Command } from "commander";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { readConfig } from "../../core/env-config.js";
import { ExitCode } from "../../core/errors.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { plannedCallsText, planPipelines } from "../../engine/run/plan.js";
import type { ChainBound } from "../../engine/run/plan-chain.js";
import { creditsEstimated } from "../../engine/run/unpriced.js";
import { type RunSummary, sheetsForRun, startRun } from "../../engine/start/start-run.js";
import {
  collect,
  dbOption,
  makeClient,
  numberFlag,
  paramsFromFlags,
  pricesOption,
  withReadDb,
  withWarehouse,
} from "../context.js";
import { cliLog, logFormat } from "../log.js";
import { runEvents } from "../log-run.js";
import { notifyTargets, withNotifyOption } from "../notify-option.js";
import { ESTIMATED_CREDITS, printJson, printLine, printTable } from "../output.js";
import { printWindowPlans } from "../plan-windows.js";
import { makeReporter, progressLine } from "../progress.js";
import { type RateFlags, rateSettings, withRateOptions } from "../rate-option.js";
import { withUnpricedOption } from "../unpriced-option.js";
import { openWorkers, type WorkersFlags, withWorkersOptions, workersFlags } from "../workers-option.js";

interface RunFlags extends WorkersFlags, RateFlags {
  db?: string;
  param?: string[];
  maxCredits?: string;
  concurrency?: string;
  prices?: string;
  json?: boolean;
  baseUrl?: string;
  strict?: boolean;
  allowRejects?: boolean;
  refresh?: boolean;
  allowUnpriced?: boolean;
  readDb?: string;
  notify?: string;
}

function withRunOptions(cmd: Command): Command {
  return withReadDb(cmd)
    .argument("<pipelines...>", "pipeline files, or names of built-in pipelines (skillsync pipelines)")
    .option(
      "--db <url>",
      "warehouse: a SQLite path, sqlite:PATH or postgres://… (default DATABASE_URL or ./skillsync.db)",
    )
    .option(
      "--param <name=value>",
      "a pipeline param; repeat to add values; name=@file reads values from a file",
      collect,
    )
    .option("--max-credits <n>", "stop dispatching before this run would spend more credits")
    .option("--concurrency <n>", "calls in flight at most", "4")
    .option(
      "--prices <file>",
      "YAML price table: slug: credits-per-call, or slug: { perItem: n } (default SKILLSYNC_PRICES)",
    )
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)")
    .option(
      "--refresh",
      "ask the API again for everything: no stored answer or item is reused (as freshness 0)",
    )
    .option("--json", "print a machine-readable summary on stdout");
}

/** Only `run` loads anything, so only it can be strict (or lenient) about what was loaded. */
function withStrict(cmd: Command): Command {
  return cmd
    .option(
      "--strict",
      "fail the run (exit 1) when records are rejected, a column's member is in no record, or records have members no column reads",
    )
    .option(
      "--allow-rejects",
      "rejected records are expected: the run ends succeeded (exit 0), not warnings (exit 5), as rejects: allow in a pipeline file",
    );
}

/**
 * Exit code of a finished run: 0 done, 5 records rejected, 3 ceiling (resumable), 4 key or access
 * refused, 2 an API that could not be reached at all (a setting), 1 failures.
 */
function runExitCode(s: RunSummary): number {
  if (s.authFailure) return ExitCode.auth;
  if (s.apiUnreachable) return ExitCode.usage;
  if (s.status === "ceiling") return ExitCode.ceiling;
  if (s.status === "succeeded") return ExitCode.ok;
  if (s.status === "warnings") return ExitCode.warnings;
  return ExitCode.failure;
}

async function runCommand(refs: string[], flags: RunFlags): Promise<void> {
  // Everything the user typed is checked before the warehouse is opened or anything is sent.
  const run = runInput(refs, flags);
  const client = makeClient(flags.baseUrl, rateSettings(flags));
  const notify = notifyTargets(flags);
  // --log-format json: events on stderr instead of the progress bar; stdout is unchanged.
  const events = logFormat() === "json" ? runEvents(cliLog()) : undefined;
  const reporter = events?.reporter ?? makeReporter(flags.json ? "silent" : "auto");
  // Sheet inputs and outputs when GOOGLE_APPLICATION_CREDENTIALS (or a token) is set.
  const sheets = await sheetsForRun();
  const abort = new AbortController();
  const stopping = stopOnSignals(abort, events !== undefined);
  try {
    const { summary, outputs } = await withWarehouse(
      dbOption(flags),
      async (warehouse) => {
        const pool = await openWorkers(run.workers);
        return startRun({
          ...run.options,
          notify,
          warehouse,
          client,
          reporter,
          signal: abort.signal,
          sheet: sheets.reader,
          onStart: events?.onStart,
          onPipelineEnd: events?.onPipelineEnd,
          workers: pool?.options,
          outputs: { sheets: sheets.connector },
          deliverNow: { log: cliLog() },
        }).finally(() => pool?.queue.close());
      },
      { readUrl: flags.readDb },
    );
    reporter.stop();
    events?.finished(summary, runExitCode(summary), outputs.lines);
    if (flags.json) printJson(summary);
    else printSummary(summary, outputs.lines);
    process.exitCode = runExitCode(summary);
  } finally {
    reporter.stop();
    stopping.dispose();
    await client.close();
  }
}

/** The run's flags, checked and parsed before anything is opened. */
function runInput(refs: string[], flags: RunFlags) {
  const pipelines = refs.map((r) => loadPipeline(r));
  const options = {
    pipelines,
    params: paramsFromFlags(flags.param),
    maxCredits: numberFlag("--max-credits", flags.maxCredits),
    concurrency: numberFlag("--concurrency", flags.concurrency, { integer: true, min: 1 }),
    prices: pricesOption(flags.prices),
    strict: flags.strict,
    allowRejects: flags.allowRejects,
    refresh: flags.refresh,
    allowUnpriced: flags.allowUnpriced,
  };
  return { options, workers: workersFlags(flags, dbOption(flags)) };
}

/** Ctrl-C (or SIGTERM) stops dispatching; a second one quits at once. */
function stopOnSignals(abort: AbortController, json: boolean): { dispose(): void } {
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(ExitCode.failure);
    const text = "skillsync: stopping: no new calls; calls in flight finish (Ctrl-C again to quit now)";
    if (json) cliLog()(text, { event: "run.stopping", level: "warn" });
    else process.stderr.write(`\n${text}\n`);
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The run's summary as text on stdout, the lines of its `sheet:` outputs last. */
function printSummary(summary: RunSummary, outputLines: string[]): void {
  printLine(`run ${summary.runId}${summary.resumed ? " (resumed)" : ""}: ${summary.status}`);
  printLine(progressLine(summary.counters));
  if (summary.creditsEstimated) printLine(ESTIMATED_CREDITS);
  for (const w of summary.priceWarnings) printLine(`warning: ${w}`);
  if (summary.stopReason) printLine(`stopped: ${summary.stopReason}`);
  for (const n of summary.notes) printLine(`note: ${n}`);
  for (const w of summary.warnings) printLine(`warning: ${w}`);
  if (summary.status === "failed" && summary.warnings.length && !summary.failures.length)
    printLine("failed: --strict (or strict: true) makes these warnings fail the run");
  if (summary.status === "warnings")
    printLine(
      "warnings: records were rejected (exit 5); fix the mapping, or accept them with rejects: allow in the pipeline file or --allow-rejects",
    );
  printFailures(summary);
  printLine(`tables: ${summary.tables.join(", ")}`);
  for (const line of outputLines) printLine(line);
}

async function planCommand(refs: string[], flags: RunFlags): Promise<void> {
  const pipelines = refs.map((r) => loadPipeline(r));
  const params = paramsFromFlags(flags.param);
  const prices = pricesOption(flags.prices);
  // Planning validates requests but sends nothing, so it needs neither a reachable API nor a key.
  const client = new SkillClient({
    baseUrl: flags.baseUrl ?? readConfig().skillApi.baseUrl ?? "http://plan.invalid",
    apiKey: readConfig().skillApi.apiKey ?? "plan-sends-nothing",
  });
  try {
    const sheets = await sheetsForRun();
    const plan = await withWarehouse(
      dbOption(flags),
      (warehouse) =>
        planPipelines({
          warehouse,
          pipelines,
          params,
          prices,
          prepare: client.prepare.bind(client),
          sheet: sheets.reader,
          refresh: flags.refresh,
        }),
      { readOnly: true, readUrl: flags.readDb },
    );
    const estimated = creditsEstimated(pipelines, prices);
    if (flags.json) return printJson({ ...plan, creditsEstimated: estimated });
    printTable(
      plan.pipelines.map((p) => ({
        pipeline: p.pipeline,
        skill: p.skill,
        inputs: p.inputs ?? "-",
        calls: p.calls,
        from_store: p.fromStore,
        more_pages_at_most: p.morePagesAtMost,
        ...(plan.pipelines.some((x) => x.items)
          ? { items_from_store: p.items?.fromStore ?? "-", items_to_pay: p.items?.toPay ?? "-" }
          : {}),
        credits: p.credits,
        credits_at_most: p.creditsAtMost,
        fed_by: p.dependsOn ? chainNote(p.dependsOn) : "",
      })),
    );
    // The calls column counts first pages: a paging pipeline says how many more may follow.
    for (const p of plan.pipelines)
      if (p.morePagesAtMost > 0) printLine(`${p.pipeline}: ${plannedCallsText(p.calls, p.maxPages)}`);
    printWindowPlans(plan.pipelines);
    const caveat = plan.unbounded.length
      ? ` (not counting ${plan.unbounded.join(", ")}: unknown until the pipelines feeding them have run)`
      : "";
    printLine(
      `credits: ${plan.credits} for the first pages, ${plan.creditsAtMost} at most${caveat}; nothing was sent`,
    );
    if (estimated) printLine(ESTIMATED_CREDITS);
  } finally {
    await client.close();
  }
}

/** Failures, the same one said once with its count; at most 10 lines. */
function printFailures(summary: RunSummary): void {
  const lines = new Map<string, number>();
  for (const f of summary.failures) {
    const text = `failed: ${f.pipeline}/${f.skill}: ${f.message}${f.ambiguous ? " (may have been billed)" : ""}`;
    lines.set(text, (lines.get(text) ?? 0) + 1);
  }
  const shown = [...lines].slice(0, 10);
  for (const [text, n] of shown) printLine(n > 1 ? `${text} (×${n})` : text);
  const more = [...lines].slice(10).reduce((sum, [, n]) => sum + n, 0);
  if (more) printLine(`… and ${more} more failures (skillsync runs)`);
}

/** "depends on patent-search: up to 10 inputs, 1 call", or that it cannot be known yet. */
function chainNote(d: ChainBound): string {
  const by = `depends on ${d.dependsOn.join(", ")}`;
  if (d.inputsAtMost === null) return `${by}: unknown until it has run`;
  return `${by}: up to ${d.inputsAtMost} input(s), ${d.callsAtMost} call(s)`;
}

export function registerRunCommands(program: Command): void {
  withRateOptions(
    withNotifyOption(
      withWorkersOptions(
        withStrict(
          withUnpricedOption(
            withRunOptions(
              program.command("run").description("run pipelines: call the API and load the tables"),
            ),
          ),
        ),
      ),
    ),
  ).action(runCommand);
  withUnpricedOption(
    withRunOptions(
      program.command("plan").description("show the calls and credits a run would need, sending nothing"),
    ),
  ).action(planCommand);
}
