import type { Warehouse } from "../connectors/warehouse/open.js";
import type { Ceiling } from "./budget.js";

export interface CeilingStatus {
  limit: number | null;
  /** Credits reserved under the scope: spent, or held by calls in flight. */
  spent: number;
  /** What is left under the limit (never below 0); null without a limit. */
  remaining: number | null;
}

// Sums of prices like 0.1 are shown as people write them.
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * One ceiling's scope as it stands (an MCP server's total over its runs, say): what its row in
 * skillsync_budgets has reserved, and what is left. A scope no call has reserved under yet has
 * spent nothing.
 */
export async function ceilingStatus(w: Warehouse, c: Ceiling): Promise<CeilingStatus> {
  const row = await w.db
    .selectFrom("skillsync_budgets")
    .select("reserved")
    .where("scope", "=", c.scope)
    .executeTakeFirst();
  const spent = round(Number(row?.reserved ?? 0));
  return { limit: c.limit, spent, remaining: c.limit === null ? null : Math.max(0, round(c.limit - spent)) };
}
