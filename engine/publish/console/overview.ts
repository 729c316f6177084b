import { type Kysely, type RawBuilder, sql } from "kysely";
import type { AnyDB, Warehouse } from "../../../connectors/warehouse/open.js";
import { budgetStatus } from "../../../store/budget-status.js";
import { estimateCredits, loadPrices, type PriceTable } from "../../define/prices.js";
import { readerDb, readerWarehouse } from "./compiled-read.js";

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
const STORE_OUTCOMES = ["cached", "shared"];

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

/**
 * The index of the window's day a timestamp falls in, as SQL both databases read alike: a CASE
 * over the day bounds, bound as parameters (so Postgres compares them as timestamps, SQLite as
 * ISO text) — no date function, which the two name differently.
 */
function dayIndex(column: string, bounds: string[]): RawBuilder<number> {
  const whens = bounds.slice(1, -1).map((b, i) => sql`when ${sql.ref(column)} < ${b} then ${sql.lit(i)}`);
  const last = sql.lit(bounds.length - 2);
  return whens.length ? sql<number>`case ${sql.join(whens, sql` `)} else ${last} end` : sql<number>`${last}`;
}

/** Runs of the window, by day and outcome, with their sums. */
function runsByDay(db: Kysely<AnyDB>, bounds: string[]) {
  const inWindow = db
    .selectFrom("skillsync_runs")
    .select([
      dayIndex("started_at", bounds).as("day"),
      "status",
      "credits_spent",
      "credits_saved",
      "calls_cached",
      "calls_shared",
      "items_reused",
    ])
    .where("started_at", ">=", bounds[0]!)
    .where("started_at", "<", bounds.at(-1)!);
  return db
    .selectFrom(inWindow.as("r"))
    .select((eb) => [
      "r.day",
      "r.status",
      eb.fn.countAll().as("n"),
      eb.fn.sum("r.credits_spent").as("credits"),
      eb.fn.sum("r.credits_saved").as("saved"),
      eb.fn.sum(eb("r.calls_cached", "+", eb.ref("r.calls_shared"))).as("from_store"),
      eb.fn.sum("r.items_reused").as("reused"),
    ])
    .groupBy(["r.day", "r.status"])
    .execute();
}

/**
 * The ledger's answers from the store (cached, or shared by another run's call) of the window's
 * runs, by day and skill: counted per run first, so the day of each run is found once, not once
 * per call.
 */
function storeAnswersByDay(db: Kysely<AnyDB>, bounds: string[]) {
  const [lo, hi] = [bounds[0]!, bounds.at(-1)!];
  const windowRuns = db
    .selectFrom("skillsync_runs")
    .where("started_at", ">=", lo)
    .where("started_at", "<", hi);
  const perRun = db
    .selectFrom("skillsync_calls")
    .select((eb) => ["run_id", "skill", eb.fn.countAll().as("n")])
    .where("outcome", "in", STORE_OUTCOMES)
    .where("run_id", "in", windowRuns.select("id"))
    .groupBy(["run_id", "skill"]);
  const dayOfRun = windowRuns.select(["id", dayIndex("started_at", bounds).as("day")]);
  return db
    .selectFrom(perRun.as("a"))
    .innerJoin(dayOfRun.as("d"), "d.id", "a.run_id")
    .select((eb) => ["d.day", "a.skill", eb.fn.sum("a.n").as("n")])
    .groupBy(["d.day", "a.skill"])
    .execute();
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
async function dayFigures(db: Kysely<AnyDB>, days: number, now: Date, prices: PriceTable) {
  const win = windowOf(days, now);
  const [runs, answers] = await Promise.all([runsByDay(db, win.bounds), storeAnswersByDay(db, win.bounds)]);
  const out = win.days.map(emptyDay);
  for (const r of runs) {
    const d = out[Number(r.day)]!;
    d.credits += Number(r.credits ?? 0);
    d.savedCredits += Number(r.saved ?? 0);
    d.callsFromStore += Number(r.from_store ?? 0);
    d.itemsReused += Number(r.reused ?? 0);
    d.runs[String(r.status)] = (d.runs[String(r.status)] ?? 0) + Number(r.n);
  }
  // The ledger keeps no item count for a stored answer: a per-item price counts one item a call.
  for (const a of answers)
    out[Number(a.day)]!.savedCredits += Number(a.n) * estimateCredits(prices, String(a.skill), 1);
  for (const d of out) {
    d.credits = round(d.credits);
    d.savedCredits = round(d.savedCredits);
  }
  return out;
}

/** The latest alerts sent (not held back by a cooldown), newest first. */
async function latestAlerts(db: Kysely<AnyDB>): Promise<LatestAlert[]> {
  const rows = await db
    .selectFrom("skillsync_alerts")
    .select(["alert_id", "watch", "table_name", "key_text", "column_name", "old_value", "new_value"])
    .select(["changed_at", "load_id"])
    .where("suppressed", "=", 0)
    .orderBy("id", "desc")
    .limit(LATEST_ALERTS)
    .execute();
  return rows.map((r) => ({
    alertId: String(r.alert_id),
    watch: String(r.watch),
    table: String(r.table_name),
    key: String(r.key_text),
    column: r.column_name === null ? null : String(r.column_name),
    from: r.old_value,
    to: r.new_value,
    at: new Date(String(r.changed_at)).toISOString(),
    loadId: Number(r.load_id),
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
  const db = readerDb(w, "console overview");
  const [days, budgets, alerts] = await Promise.all([
    dayFigures(db, o.days, o.now ?? new Date(), o.prices ?? loadPrices()),
    budgetStatus(readerWarehouse(w, "console overview")),
    latestAlerts(db),
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
