import type { Command } from "commander";
import { budgetStatus, setBudget } from "../../store/budget-status.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, numberFlag, withWarehouse } from "../context.js";
import { printJson, printTable } from "../output.js";

export function registerBudgetCommand(program: Command): void {
  program
    .command("budget")
    .description("show or set the warehouse's daily and monthly credit ceilings (shared by every run)")
    .option("--db <url>", "warehouse URL")
    .option("--daily <credits>", "set the daily ceiling ('none' clears it)")
    .option("--monthly <credits>", "set the monthly ceiling ('none' clears it)")
    .option("--json", "print JSON")
    .action((flags: { db?: string; daily?: string; monthly?: string; json?: boolean }) =>
      withWarehouse(
        dbOption(flags),
        async (w) => {
          const parse = (name: string, v: string | undefined) =>
            v === undefined ? undefined : v === "none" ? null : numberFlag(name, v);
          const daily = parse("--daily", flags.daily);
          const monthly = parse("--monthly", flags.monthly);
          await migrateToLatest(w);
          if (daily !== undefined) await setBudget(w, "daily", daily);
          if (monthly !== undefined) await setBudget(w, "monthly", monthly);
          const view = (await budgetStatus(w)).map(({ period, limit, spent, remaining }) => ({
            period,
            limit,
            spent,
            remaining,
          }));
          if (flags.json) printJson(view);
          else
            printTable(
              view.map((v) => ({ ...v, limit: v.limit ?? "none", remaining: v.remaining ?? "unlimited" })),
            );
          // Showing reads; only setting a ceiling may create the warehouse.
        },
        { existing: flags.daily === undefined && flags.monthly === undefined },
      ),
    );
}
