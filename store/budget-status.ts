import type { Warehouse } from "../connectors/warehouse/open.js";
import { type Ceiling, dayScope, monthScope, warehouseCeilings } from "./budget.js";

export type BudgetPeriod = "daily" | "monthly";

export interface BudgetStatus extends CeilingStatus {
  period: BudgetPeriod;
  /** The current period's row: `daily:2026-11-23`, `monthly:2026-11`. */
  scope: string;
}

/** What a ceiling's scope has reserved (spent, or held by calls in flight) and what is left under its limit. */
export interface CeilingStatus {
  limit: number | null;
  spent: number;
  /** Never below 0; null without a limit. */
  remaining: number | null;
}

// Sums of prices like 0.1 are shown as people write them.
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * Ceilings as they stand, in one query: what each scope's row in skillsync_budgets has reserved
 * (none yet: nothing spent) and what is left. The daily and monthly budgets, an MCP server's total.
 */
export async function ceilingStatuses(w: Warehouse, ceilings: readonly Ceiling[]): Promise<CeilingStatus[]> {
  if (!ceilings.length) return [];
  const rows = await w.db
    .selectFrom("skillsync_budgets")
    .select(["scope", "reserved"])
    .where(
      "scope",
      "in",
      ceilings.map((c) => c.scope),
    )
    .execute();
  return ceilings.map(({ scope, limit }) => {
    const spent = round(Number(rows.find((r) => r.scope === scope)?.reserved ?? 0));
    return { limit, spent, remaining: limit === null ? null : Math.max(0, round(limit - spent)) };
  });
}

const scopeOf = (period: BudgetPeriod) => (period === "daily" ? dayScope() : monthScope());

/** The warehouse's persistent ceilings and what the current day and month have reserved. */
export async function budgetStatus(w: Warehouse): Promise<BudgetStatus[]> {
  const set = await warehouseCeilings(w);
  const periods = ["daily", "monthly"] as const;
  const ceilings = periods.map((period) => {
    const scope = scopeOf(period);
    return { scope, label: `${period} budget`, limit: set.find((c) => c.scope === scope)?.limit ?? null };
  });
  const statuses = await ceilingStatuses(w, ceilings);
  return periods.map((period, i) => ({ period, scope: ceilings[i]!.scope, ...statuses[i]! }));
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
