import type { Command } from "commander";
import { recentWarehouseRuns, runRowView } from "../../engine/publish/run-and-pipeline-views.js";
import { migrateToLatest } from "../../store/migrate.js";
import { type RunDetail, runDetail } from "../../store/run-detail.js";
import { dbOption, numberFlag, UsageError, withWarehouse } from "../context.js";
import { ESTIMATED_CREDITS, printJson, printLine, printTable } from "../output.js";

export function registerRunsCommand(program: Command): void {
  program
    .command("runs")
    .description("list past runs (trigger, calls, credits, rows, outcome), or one run per pipeline")
    .argument(
      "[id]",
      "a run id: calls, from store, from another run, credits, rows, rejects, failures, loads",
    )
    .option("--db <url>", "warehouse URL")
    .option("--limit <n>", "how many runs", "20")
    .option("--json", "print JSON")
    .action((id: string | undefined, flags: { db?: string; limit: string; json?: boolean }) =>
      withWarehouse(
        dbOption(flags),
        async (w) => {
          const limit = numberFlag("--limit", flags.limit, { integer: true, min: 1 }) ?? 20;
          await migrateToLatest(w);
          if (id !== undefined) return printRun(id, await runDetail(w, id), flags.json === true);
          // The run view the server and MCP give (one casing everywhere), as JSON or as a table.
          const list = await recentWarehouseRuns(w, limit);
          if (flags.json) return printJson(list);
          printTable(
            list.map((r) => ({
              run: r.runId,
              pipelines: r.pipeline,
              trigger: r.trigger,
              outcome: r.status,
              started: String(r.startedAt).slice(0, 19),
              calls: `${r.calls.done}/${r.calls.planned}`,
              cached: r.calls.cached,
              shared: r.calls.shared,
              failed: r.calls.failed,
              "429s": r.calls.rateLimited,
              credits: r.credits.estimated ? `≈${r.credits.spent}` : r.credits.spent,
              rows: r.rows.written,
              rejected: r.rows.rejected,
              warnings: r.warnings.length,
              note: r.stopReason ?? r.errors[0]?.message ?? "",
            })),
          );
          if (list.some((r) => r.credits.estimated)) printLine(`≈ ${ESTIMATED_CREDITS}`);
        },
        { existing: true },
      ),
    );
}

function printRun(id: string, d: RunDetail | undefined, json: boolean): void {
  if (!d) throw new UsageError(`no run "${id}" in this warehouse (see \`skillsync runs\` for the ids)`);
  if (json) {
    printJson({ ...d, run: runRowView(d.run) });
    return;
  }
  const r = d.run;
  printLine(
    `run ${id} · ${r["status"]} · ${r["trigger"]} · started ${String(r["started_at"]).slice(0, 19)}` +
      (r["finished_at"] ? ` · finished ${String(r["finished_at"]).slice(0, 19)}` : ""),
  );
  if (r["stop_reason"] ?? r["error"]) printLine(`note: ${r["stop_reason"] ?? r["error"]}`);
  if (runRowView(r).credits.estimated) printLine(ESTIMATED_CREDITS);
  printTable(
    d.pipelines.map((p) => ({
      pipeline: p.pipeline,
      calls: p.calls,
      paid: p.paid,
      "from store": p.fromStore,
      "from another run": p.fromAnotherRun,
      failed: p.failed + p.ambiguous,
      credits: p.credits,
      rows: p.rows,
      rejects: p.rejects,
    })),
  );
  if (d.loads.length) {
    printLine("loads:");
    printTable(
      d.loads.map((l) => ({
        load: l.id,
        pipeline: l.pipeline,
        started: l.startedAt.slice(0, 19),
        finished: l.finishedAt?.slice(0, 19) ?? "",
        "rows inserted": l.rowsInserted,
        "new versions": l.versionsNew,
        unchanged: l.unchanged,
        closed: l.closed,
      })),
    );
  }
  const reused = Number(r["items_reused"] ?? 0);
  if (reused) {
    printLine(
      `item reuse: ${reused} item(s) loaded from stored parts or another run's call · credits saved ${Number(r["credits_saved"] ?? 0)}`,
    );
  }
  const refused = Number(r["rate_limited"] ?? 0);
  if (refused)
    printLine(
      `rate limit: ${refused} request(s) refused with 429, each waited and went again (not failures)`,
    );
  for (const w of d.warnings) printLine(`warning: ${w}`);
  for (const p of d.pipelines) {
    for (const f of p.failures)
      printLine(`failed: ${p.pipeline}: ${f.code} ${f.message}${f.count > 1 ? ` (${f.count}×)` : ""}`);
  }
}
