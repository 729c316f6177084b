import type { Command } from "commander";
import { readAlerts } from "../../engine/watch/index.js";
import { dbOption, withWarehouse } from "../context.js";
import { printJson, printLine, printTable } from "../output.js";

interface AlertsFlags {
  db?: string;
  since?: string;
  watch?: string;
  json?: boolean;
}

export function registerAlertsCommand(program: Command): void {
  program
    .command("alerts")
    .description("what the watches found: one row per alert, oldest first (docs/alerts.md)")
    .option(
      "--since <last|date|load>",
      "last: the latest load that alerted; a date (YYYY-MM-DD); a load id: later loads",
    )
    .option("--watch <name>", "only this watch's alerts")
    .option("--db <url>", "warehouse URL")
    .option("--json", "print JSON")
    .action((f: AlertsFlags) =>
      withWarehouse(
        dbOption(f),
        async (w) => {
          const alerts = await readAlerts(w, { since: f.since, watch: f.watch });
          if (f.json) return printJson(alerts.map(({ suppressed: _, ...a }) => a));
          if (!alerts.length)
            return printLine(
              `no alerts${f.watch ? ` of watch ${f.watch}` : ""}${f.since ? ` since ${f.since}` : ""}`,
            );
          printTable(
            alerts.map((a) => ({
              changed: a.changedAt.slice(0, 19).replace("T", " "),
              load: a.loadId,
              watch: a.watch,
              key: a.key,
              change:
                a.change === "appeared" ? `appeared${a.column ? ` in ${a.column}` : ""}` : (a.column ?? ""),
              old: a.old ?? "",
              new: a.new ?? "",
            })),
          );
          printLine(`${alerts.length} alert(s)`);
        },
        { existing: true },
      ),
    );
}
