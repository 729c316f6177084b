import type { Command } from "commander";
import { ExitCode } from "../../core/errors.js";
import { dbOption } from "../context.js";
import {
  type Check,
  checkApi,
  checkNotify,
  checkPipelines,
  checkSheets,
  checkWarehouse,
  configuredWebhooks,
  stopsRun,
} from "../doctor/checks.js";
import { printJson, printLine } from "../output.js";

interface DoctorFlags {
  db?: string;
  baseUrl?: string;
  notify?: string;
  json?: boolean;
}

const MARK = (c: Check) => (c.ok ? (c.note ? "•" : "✓") : c.runsAnyway ? "!" : "✗");

/**
 * `skillsync doctor`: checks a set-up, changing nothing and spending no credit. Exit 2 only for
 * what would stop a run; a note (a new warehouse's migrations) or a warning (a webhook that
 * refuses) is printed and leaves the exit code 0.
 */
async function doctor(refs: string[], flags: DoctorFlags): Promise<void> {
  const pipelines = checkPipelines(refs);
  const webhooks = configuredWebhooks(flags.notify, pipelines.webhooks);
  const checks: Check[] = [
    ...(await checkApi(flags.baseUrl)),
    ...(await checkWarehouse(dbOption(flags))),
    ...pipelines.checks,
    ...checkSheets(),
    ...(Array.isArray(webhooks) ? await checkNotify(webhooks) : [webhooks]),
  ];
  const stopping = checks.filter(stopsRun).length;
  const warnings = checks.filter((c) => !c.ok && c.runsAnyway).length;
  const ok = stopping === 0;
  if (flags.json) printJson({ ok, checks });
  else {
    for (const c of checks) printLine(`${MARK(c)} ${c.check}: ${c.detail}${c.fix ? ` — ${c.fix}` : ""}`);
    const warned = warnings ? `; ${warnings} warning(s), which stop no run` : "";
    printLine(
      ok
        ? `${warnings ? "nothing stops a run" : "all checks passed"}${warned}`
        : `${stopping} check(s) failed${warned}`,
    );
  }
  process.exitCode = ok ? ExitCode.ok : ExitCode.usage;
}

export function registerDoctorCommand(program: Command): void {
  program
    .command("doctor")
    .description(
      "check the set-up (API and key, warehouse, migrations, pipeline files, Sheets, notifications) without spending a credit",
    )
    .argument("[pipelines...]", "pipeline files or folders to check (default ./pipelines)")
    .option("--db <url>", "warehouse URL (default DATABASE_URL or ./skillsync.db)")
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)")
    .option(
      "--notify <url>",
      "a notification webhook to send a test event to (default SKILLSYNC_NOTIFY_URL; schedule files' webhooks get one too)",
    )
    .option("--json", "print the checks as JSON")
    .action(doctor);
}
