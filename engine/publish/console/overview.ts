import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { latestSentAlerts } from "../../../store/alerts.js";
import { budgetStatus } from "../../../store/budget-status.js";
import { runsByDay, storeAnswersByDay } from "../../../store/console-runs.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import { estimateCredits, loadPrices, type PriceTable } from "../../define/prices.js";

/** One UTC day of the overview: what the runs started that day spent, saved and how they ended. */
export interface DayFigures {
  /** "2026-11-29": the UTC day of the runs' `started_at`. */
  day: string;
  /** Σ credits_spent of the runs started that day (what `skillsync runs` lists, summed per day). */
  credits: number;
  /** Σ credits_saved (items reused) + what the store's answers would have cost at the price table's prices. */
  savedCredits: number;
  /** Σ calls_cached + calls_shared. */
  callsFromStore: number;
  itemsReused: number;
  /** Runs per outcome (succeeded, warnings, failed, ceiling, interrupted, running). */
  runs: Record<string, number>;
}

interface LatestAlert {
  alertId: string;
  watch: string;
  table: string;
  key: string;
  column: string | null;
  from: unknown;
  to: unknown;
  at: string;
  loadId: number;
}

export interface Overview {
  /** Every day of the window, oldest first, days without runs included. */
  days: DayFigures[];
  budget: {
    dailyLimit: number | null;
    monthlyLimit: number | null;
    spentToday: number;
    spentThisMonth: number;
  };
  /** Newest first, at most 10; alerts held back by a cooldown left out (they were not sent). */
  latestAlerts: LatestAlert[];
}

const DAY_MS = 86_400_000;
const LATEST_ALERTS = 10;

// Sums of prices like 0.1 shown as people write them.
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The window's UTC days ("2026-11-29") and their bounds: day i is [bounds[i], bounds[i+1]). */
function windowOf(days: number, now: Date): { days: string[]; bounds: string[] } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = today - (Math.max(1, Math.floor(days)) - 1) * DAY_MS;
  const bounds: string[] = [];
  for (let t = first; t <= today + DAY_MS; t += DAY_MS) bounds.push(new Date(t).toISOString());
  return { days: bounds.slice(0, -1).map((b) => b.slice(0, 10)), bounds };
}

const emptyDay = (day: string): DayFigures => ({
  day,
  credits: 0,
  savedCredits: 0,
  callsFromStore: 0,
  itemsReused: 0,
  runs: {},
});

/** The window's days, each with its runs' sums and what its answers from the store saved. */
async function dayFigures(r: Warehouse, days: number, now: Date, prices: PriceTable) {
  const win = windowOf(days, now);
  const [runs, answers] = await Promise.all([runsByDay(r, win.bounds), storeAnswersByDay(r, win.bounds)]);
  const out = win.days.map(emptyDay);
  for (const s of runs) {
    const d = out[s.day]!;
    d.credits += s.credits;
    d.savedCredits += s.saved;
    d.callsFromStore += s.fromStore;
    d.itemsReused += s.itemsReused;
    d.runs[s.status] = (d.runs[s.status] ?? 0) + s.runs;
  }
  // The ledger keeps no item count for a stored answer: a per-item price counts one item a call.
  for (const a of answers) out[a.day]!.savedCredits += a.calls * estimateCredits(prices, a.skill, 1);
  for (const d of out) {
    d.credits = round(d.credits);
    d.savedCredits = round(d.savedCredits);
  }
  return out;
}

/** The latest alerts sent (not held back by a cooldown), newest first (the overview's, or `limit` of them). */
export async function latestAlerts(r: Warehouse, limit = LATEST_ALERTS): Promise<LatestAlert[]> {
  const alerts = await latestSentAlerts(r.db, limit);
  return alerts.map((a) => ({
    alertId: a.id,
    watch: a.watch,
    table: a.table,
    key: a.key,
    column: a.column,
    from: a.old,
    to: a.new,
    at: a.changedAt,
    loadId: a.loadId,
  }));
}

/**
 * The console's overview: per UTC day of the last `days` (today included) the credits spent and
 * saved, answers from the store, items reused and runs by outcome; the budgets as they stand;
 * the latest alerts. Every read on the read-only path.
 */
export async function readOverview(
  w: Warehouse,
  o: { days: number; now?: Date; prices?: PriceTable },
): Promise<Overview> {
  const r = readerWarehouse(w, "console overview");
  const [days, budgets, alerts] = await Promise.all([
    dayFigures(r, o.days, o.now ?? new Date(), o.prices ?? loadPrices()),
    budgetStatus(r),
    latestAlerts(r),
  ]);
  const daily = budgets.find((b) => b.period === "daily");
  const monthly = budgets.find((b) => b.period === "monthly");
  return {
    days,
    budget: {
      dailyLimit: daily?.limit ?? null,
      monthlyLimit: monthly?.limit ?? null,
      spentToday: daily?.spent ?? 0,
      spentThisMonth: monthly?.spent ?? 0,
    },
    latestAlerts: alerts,
  };
}
