import type { Warehouse } from "../connectors/warehouse/open.js";
import { dayScope, monthScope, warehouseCeilings } from "./budget.js";

export type BudgetPeriod = "daily" | "monthly";

export interface BudgetStatus {
  period: BudgetPeriod;
  /** The current period's row: `daily:2026-11-23`, `monthly:2026-11`. */
  scope: string;
  limit: number | null;
  spent: number;
  remaining: number | null;
}

const scopeOf = (period: BudgetPeriod) => (period === "daily" ? dayScope() : monthScope());

/** The warehouse's persistent ceilings and what the current day and month have reserved. */
export async function budgetStatus(w: Warehouse): Promise<BudgetStatus[]> {
  const ceilings = await warehouseCeilings(w);
  const periods = ["daily", "monthly"] as const;
  const rows = await w.db
    .selectFrom("skillsync_budgets")
    .select(["scope", "reserved"])
    .where("scope", "in", periods.map(scopeOf))
    .execute();
  return periods.map((period) => {
    const scope = scopeOf(period);
    const limit = ceilings.find((c) => c.scope === scope)?.limit ?? null;
    const spent = Number(rows.find((r) => r.scope === scope)?.reserved ?? 0);
    return { period, scope, limit, spent, remaining: limit === null ? null : Math.max(0, limit - spent) };
  });
}

/** Sets (or with null clears) a persistent ceiling; the current period's row follows at once. */
export async function setBudget(w: Warehouse, period: BudgetPeriod, limit: number | null): Promise<void> {
  const now = new Date().toISOString();
  await w.db
    .insertInto("skillsync_budget_settings")
    .values({ period, limit_credits: limit, updated_at: now })
    .onConflict((oc) => oc.column("period").doUpdateSet({ limit_credits: limit, updated_at: now }))
    .execute();
  await w.db
    .updateTable("skillsync_budgets")
    .set({ limit_credits: limit, updated_at: now })
    .where("scope", "=", scopeOf(period))
    .execute();
}
