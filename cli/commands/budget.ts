import type { Command } from "commander";
import { budgetEstimated } from "../../engine/run/unpriced.js";
import { budgetStatus, setBudget } from "../../store/budget-status.js";
import { migrateToLatest } from "../../store/migrate.js";
import { dbOption, numberFlag, pricesOption, withWarehouse } from "../context.js";
import { printJson, printLine, printTable } from "../output.js";

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
          // Reserved at the prices in force: SKILLSYNC_PRICES, else the catalog's guesses.
          const estimated = budgetEstimated(pricesOption(undefined));
          const view = (await budgetStatus(w)).map(({ period, limit, spent, remaining }) => ({
            period,
            limit,
            spent,
            remaining,
            estimated,
          }));
          if (flags.json) return printJson(view);
          printTable(
            view.map(({ estimated: _, ...v }) => ({
              ...v,
              limit: v.limit ?? "none",
              remaining: v.remaining ?? "unlimited",
            })),
          );
          if (estimated)
            printLine(
              "spent and remaining are estimated: reserved at the catalog's prices, not the account's (SKILLSYNC_PRICES names a price file; see docs/pricing.md)",
            );
          // Showing reads; only setting a ceiling may create the warehouse.
        },
        { existing: flags.daily === undefined && flags.monthly === undefined },
      ),
    );
}
