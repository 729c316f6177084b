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
} from "../doctor/checks.js";
import { printJson, printLine } from "../output.js";

interface DoctorFlags {
  db?: string;
  baseUrl?: string;
  notify?: string;
  json?: boolean;
}

/** `skillsync doctor`: checks a set-up, changing nothing and spending no credit. */
async function doctor(refs: string[], flags: DoctorFlags): Promise<void> {
  const notify = flags.notify ?? (process.env["SKILLSYNC_NOTIFY_URL"]?.trim() || undefined);
  const checks: Check[] = [
    ...(await checkApi(flags.baseUrl)),
    ...(await checkWarehouse(dbOption(flags))),
    ...checkPipelines(refs),
    ...checkSheets(),
    ...(await checkNotify(notify)),
  ];
  const ok = checks.every((c) => c.ok);
  if (flags.json) printJson({ ok, checks });
  else {
    for (const c of checks)
      printLine(`${c.ok ? "✓" : "✗"} ${c.check}: ${c.detail}${c.fix ? ` — ${c.fix}` : ""}`);
    printLine(ok ? "all checks passed" : `${checks.filter((c) => !c.ok).length} check(s) failed`);
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
    .option("--notify <url>", "a notification webhook to send a test event to (default SKILLSYNC_NOTIFY_URL)")
    .option("--json", "print the checks as JSON")
    .action(doctor);
}
