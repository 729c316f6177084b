import type { Command } from "commander";
import { readJson } from "../../connectors/warehouse/adapter.js";
import { migrateToLatest } from "../../connectors/warehouse/migrate.js";
import { dbOption, numberFlag, withWarehouse } from "../context.js";
import { printJson, printTable } from "../output.js";

export function registerRunsCommand(program: Command): void {
  program
    .command("runs")
    .description("list past runs: trigger, calls, credits, rows and outcome")
    .option("--db <url>", "warehouse URL")
    .option("--limit <n>", "how many runs", "20")
    .option("--json", "print JSON")
    .action((flags: { db?: string; limit: string; json?: boolean }) =>
      withWarehouse(dbOption(flags), async (w) => {
        const limit = numberFlag("--limit", flags.limit, { integer: true, min: 1 }) ?? 20;
        await migrateToLatest(w);
        const rows = await w.db
          .selectFrom("skillsync_runs")
          .select([
            "id",
            "pipelines",
            "trigger",
            "status",
            "started_at",
            "finished_at",
            "calls_planned",
            "calls_done",
            "calls_cached",
            "calls_failed",
            "credits_spent",
            "rows_written",
            "rows_rejected",
            "stop_reason",
            "error",
          ])
          .orderBy("started_at", "desc")
          .limit(limit)
          .execute();
        const list = rows.map((r) => ({ ...r, pipelines: readJson<string[]>(r.pipelines) }));
        if (flags.json) return printJson(list);
        printTable(
          list.map((r) => ({
            run: r.id,
            pipelines: r.pipelines.join(","),
            trigger: r.trigger,
            outcome: r.status,
            started: String(r.started_at).slice(0, 19),
            calls: `${r.calls_done}/${r.calls_planned}`,
            cached: r.calls_cached,
            failed: r.calls_failed,
            credits: r.credits_spent,
            rows: r.rows_written,
            note: r.stop_reason ?? r.error ?? "",
          })),
        );
      }),
    );
}
