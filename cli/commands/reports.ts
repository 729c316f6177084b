import type { Command } from "commander";
import { ExitCode } from "../../core/errors.js";
import { checkRetry, createCost, type RetryResult, retryReportJob } from "../../engine/run/retry-report.js";
import { migrateToLatest } from "../../store/migrate.js";
import { findJob, listJobs } from "../../store/report-job-lookup.js";
import type { ReportJob } from "../../store/report-jobs.js";
import { dbOption, makeClient, numberFlag, pricesOption, UsageError, withWarehouse } from "../context.js";
import { printJson, printLine, printTable } from "../output.js";
import { withUnpricedOption } from "../unpriced-option.js";

interface ListFlags {
  db?: string;
  status?: string;
  pipeline?: string;
  limit: string;
  json?: boolean;
}

interface RetryFlags {
  db?: string;
  create?: boolean;
  maxCredits?: string;
  prices?: string;
  allowUnpriced?: boolean;
  baseUrl?: string;
  json?: boolean;
}

/** One line per job: where it stands and what it cost, without the parts' tokens. */
function jobView(j: ReportJob): Record<string, unknown> {
  return {
    job: j.id,
    pipeline: j.pipeline,
    report: j.reportId ?? "",
    connection: j.connectionId ?? "",
    dates: `${String(j.request["startDate"] ?? "")}..${String(j.request["endDate"] ?? "")}`,
    state: j.status,
    provider: j.providerStatus ?? "",
    parts: j.parts.length ? `${j.partsLoaded.length}/${j.parts.length}` : "",
    rows: j.rowsLoaded,
    polls: j.polls,
    credits: j.credits,
    updated: j.updatedAt.slice(0, 19),
    note: j.error ?? "",
  };
}

async function listCommand(flags: ListFlags): Promise<void> {
  const limit = numberFlag("--limit", flags.limit, { integer: true, min: 1 }) ?? 50;
  await withWarehouse(
    dbOption(flags),
    async (w) => {
      await migrateToLatest(w);
      const jobs = await listJobs(w, { status: flags.status, pipeline: flags.pipeline, limit });
      if (flags.json) return printJson(jobs.map(({ parts, ...j }) => ({ ...j, parts: parts.length })));
      if (!jobs.length)
        return printLine(
          "no report jobs yet (report pipelines create them: skillsync run ads-sp-audience …)",
        );
      printTable(jobs.map(jobView));
    },
    // Listing only reads: a warehouse that is not there is said so, never created.
    { existing: true },
  );
}

function retryExitCode(r: RetryResult): number {
  if (r.authFailure) return ExitCode.auth;
  if (r.status === "ceiling") return ExitCode.ceiling;
  return r.status === "succeeded" ? ExitCode.ok : ExitCode.failure;
}

async function retryCommand(ref: string, flags: RetryFlags): Promise<void> {
  const maxCredits = numberFlag("--max-credits", flags.maxCredits);
  const prices = pricesOption(flags.prices);
  const create = flags.create === true;
  await withWarehouse(dbOption(flags), async (w) => {
    await migrateToLatest(w);
    const before = await findJob(w, ref);
    if (!before) throw new UsageError(`no report job "${ref}" (see skillsync reports)`);
    // Everything the user can fix is said before a client is made or anything is sent.
    checkRetry(before, create, createCost(before, prices));
    if (create) {
      process.stderr.write(
        `skillsync: creating the report of job #${before.id} again: a new create, costs ${createCost(before, prices)} credits\n`,
      );
    }
    const client = makeClient(flags.baseUrl);
    try {
      const allowUnpriced = flags.allowUnpriced;
      const r = await retryReportJob({
        warehouse: w,
        client,
        ref,
        create,
        maxCredits,
        prices,
        allowUnpriced,
      });
      for (const warning of r.priceWarnings) process.stderr.write(`warning: ${warning}\n`);
      if (flags.json) printJson({ ...r, job: { ...r.job, parts: r.job.parts.length } });
      else {
        printLine(`run ${r.runId}: ${r.status}${r.created ? ` (new job #${r.job.id})` : ""}`);
        printTable([jobView(r.job)]);
        for (const f of r.failures.slice(0, 5)) {
          printLine(`failed: ${f.message}${f.ambiguous ? " (may have been billed)" : ""}`);
        }
      }
      process.exitCode = retryExitCode(r);
    } finally {
      await client.close();
    }
  });
}

export function registerReportsCommand(program: Command): void {
  const reports = program
    .command("reports")
    .description("asynchronous report jobs: list them, or retry a stuck or failed one");
  reports
    .command("list", { isDefault: true })
    .description("list report jobs: report id, state, parts loaded, rows, polls and credits")
    .option("--db <url>", "warehouse URL")
    .option(
      "--status <state>",
      "only jobs in this state (pending, downloading, done, failed, timeout, lost, refused)",
    )
    .option("--pipeline <name>", "only jobs of this pipeline")
    .option("--limit <n>", "how many jobs, newest first", "50")
    .option("--json", "print JSON")
    .action(listCommand);
  const retry = reports
    .command("retry")
    .description(
      "go on with a job: poll a pending or timed-out report again, download its missing parts; --create makes a new report (a paid create)",
    )
    .argument("<job>", "job number or reportId (skillsync reports)")
    .option(
      "--create",
      "create the report again (failed or lost jobs, or to refresh a done one): costs a create",
    )
    .option("--db <url>", "warehouse URL")
    .option("--max-credits <n>", "stop before this retry would spend more credits")
    .option("--prices <file>", "YAML price table (default SKILLSYNC_PRICES)")
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)")
    .option("--json", "print JSON");
  withUnpricedOption(retry).action(retryCommand);
}
