import type { Command } from "commander";
import { migrateToLatest } from "../../connectors/warehouse/migrate.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { dayScope, monthScope } from "../../pipelines/engine/budget.js";
import { dbOption, numberFlag, withWarehouse } from "../context.js";
import { printJson, printTable } from "../output.js";

export interface BudgetView {
  period: "daily" | "monthly";
  limit: number | null;
  spent: number;
  remaining: number | null;
}

/** The warehouse's persistent ceilings and what the current day and month have reserved. */
export async function budgetStatus(w: Warehouse): Promise<BudgetView[]> {
  await migrateToLatest(w);
  const settings = await w.db.selectFrom("skillsync_budget_settings").selectAll().execute();
  const scopes = await w.db
    .selectFrom("skillsync_budgets")
    .select(["scope", "reserved"])
    .where("scope", "in", [dayScope(), monthScope()])
    .execute();
  return (["daily", "monthly"] as const).map((period) => {
    const limitRaw = settings.find((s) => s.period === period)?.limit_credits;
    const limit = limitRaw === null || limitRaw === undefined ? null : Number(limitRaw);
    const spent = Number(
      scopes.find((s) => s.scope === (period === "daily" ? dayScope() : monthScope()))?.reserved ?? 0,
    );
    return { period, limit, spent, remaining: limit === null ? null : Math.max(0, limit - spent) };
  });
}

/** Sets (or with null clears) a persistent ceiling; the current period's row follows at once. */
export async function setBudget(
  w: Warehouse,
  period: "daily" | "monthly",
  limit: number | null,
): Promise<void> {
  const now = new Date().toISOString();
  await w.db
    .insertInto("skillsync_budget_settings")
    .values({ period, limit_credits: limit, updated_at: now })
    .onConflict((oc) => oc.column("period").doUpdateSet({ limit_credits: limit, updated_at: now }))
    .execute();
  await w.db
    .updateTable("skillsync_budgets")
    .set({ limit_credits: limit, updated_at: now })
    .where("scope", "=", period === "daily" ? dayScope() : monthScope())
    .execute();
}

export function registerBudgetCommand(program: Command): void {
  program
    .command("budget")
    .description("show or set the warehouse's daily and monthly credit ceilings (shared by every run)")
    .option("--db <url>", "warehouse URL")
    .option("--daily <credits>", "set the daily ceiling ('none' clears it)")
    .option("--monthly <credits>", "set the monthly ceiling ('none' clears it)")
    .option("--json", "print JSON")
    .action((flags: { db?: string; daily?: string; monthly?: string; json?: boolean }) =>
      withWarehouse(dbOption(flags), async (w) => {
        const parse = (name: string, v: string | undefined) =>
          v === undefined ? undefined : v === "none" ? null : numberFlag(name, v);
        const daily = parse("--daily", flags.daily);
        const monthly = parse("--monthly", flags.monthly);
        await migrateToLatest(w);
        if (daily !== undefined) await setBudget(w, "daily", daily);
        if (monthly !== undefined) await setBudget(w, "monthly", monthly);
        const view = await budgetStatus(w);
        if (flags.json) printJson(view);
        else
          printTable(
            view.map((v) => ({ ...v, limit: v.limit ?? "none", remaining: v.remaining ?? "unlimited" })),
          );
      }),
    );
}
