import { describe, expect, it } from "vitest";
import type { PriceTable } from "../../../../engine/define/prices.js";
import { readOverview } from "../../../../engine/publish/console/overview.js";
import { recentWarehouseRuns } from "../../../../engine/publish/run-and-pipeline-views.js";
import { type AlertDraft, insertAlerts } from "../../../../store/alerts.js";
import { dayScope, monthScope } from "../../../../store/budget.js";
import { setBudget } from "../../../../store/budget-status.js";
import { unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { freshWarehouse, insertLedger, insertRuns, type RunSeed } from "./run-fixtures.js";

const NOW = new Date("2026-11-29T15:00:00.000Z");
const PRICES: PriceTable = new Map([
  ["report-x", { perCall: 2.5 }],
  ["patent-claims", { perItem: 0.5 }],
]);

// Runs around the window of 7 days (2026-11-23 … 2026-11-29) and its day bounds.
const RUNS: RunSeed[] = [
  { id: "r-old", startedAt: "2026-11-22T23:59:59.999Z", credits: 100, status: "failed" },
  { id: "r-a", startedAt: "2026-11-23T00:00:00.000Z", credits: 1.1, saved: 3, cached: 2, reused: 4 },
  { id: "r-b", startedAt: "2026-11-23T23:59:59.999Z", credits: 2.2, status: "warnings", shared: 1 },
  { id: "r-c", startedAt: "2026-11-25T12:00:00.000Z", credits: 10, status: "ceiling", saved: 0.25 },
  { id: "r-d", startedAt: "2026-11-29T00:00:00.000Z", credits: 0.1, status: "running", cached: 3 },
  { id: "r-e", startedAt: "2026-11-29T14:59:00.000Z", credits: 0.2, status: "failed" },
  { id: "r-next", startedAt: "2026-11-30T00:00:00.000Z", credits: 50 },
];

function alert(i: number, suppressed = false): AlertDraft {
  return {
    watch: "price-drop",
    table: "prices",
    key: `k${i}`,
    column: "price",
    change: "changed",
    old: String(10 + i),
    new: String(9 + i),
    loadId: i,
    runId: null,
    changedAt: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
    suppressed,
  };
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`the console's overview on ${kind}`, () => {
    it("sums each UTC day of the window as `skillsync runs` lists its runs, zero days included", async () => {
      const w = await freshWarehouse(kind);
      await insertRuns(w, RUNS);
      await insertLedger(w, "r-a", [
        { skill: "report-x", outcome: "cached", n: 2 },
        { skill: "report-x", outcome: "succeeded", n: 3, credits: 2.5 },
      ]);
      await insertLedger(w, "r-b", [{ skill: "patent-claims", outcome: "shared", n: 1 }]);
      await insertLedger(w, "r-d", [{ skill: "unpriced-op", outcome: "cached", n: 3 }]);
      await insertLedger(w, "r-old", [{ skill: "report-x", outcome: "cached", n: 7 }]);

      const o = await readOverview(w, { days: 7, now: NOW, prices: PRICES });
      expect(o.days.map((d) => d.day)).toEqual([
        "2026-11-23",
        "2026-11-24",
        "2026-11-25",
        "2026-11-26",
        "2026-11-27",
        "2026-11-28",
        "2026-11-29",
      ]);
      const perDay = new Map<string, number>();
      for (const r of await recentWarehouseRuns(w, 1000)) {
        const day = String(r.startedAt).slice(0, 10);
        perDay.set(day, (perDay.get(day) ?? 0) + r.credits.spent);
      }
      for (const d of o.days) expect(d.credits, d.day).toBeCloseTo(perDay.get(d.day) ?? 0, 9);

      const [d23, d24, d25, , , , d29] = o.days;
      expect(d23).toEqual({
        day: "2026-11-23",
        credits: 3.3,
        // credits_saved 3, two cached report-x at 2.5, one shared patent-claims at 0.5 an item.
        savedCredits: 3 + 5 + 0.5,
        callsFromStore: 3,
        itemsReused: 4,
        runs: { succeeded: 1, warnings: 1 },
      });
      expect(d24).toEqual({
        day: "2026-11-24",
        credits: 0,
        savedCredits: 0,
        callsFromStore: 0,
        itemsReused: 0,
        runs: {},
      });
      expect(d25?.runs).toEqual({ ceiling: 1 });
      expect(d25?.savedCredits).toBe(0.25);
      // An operation no price table knows: 1 credit a call.
      expect(d29).toMatchObject({
        credits: 0.3,
        savedCredits: 3,
        callsFromStore: 3,
        runs: { running: 1, failed: 1 },
      });
    });

    it("gives the budgets as they stand and the ten latest alerts sent, newest first", async () => {
      const w = await freshWarehouse(kind);
      await setBudget(w, "daily", 500);
      const now = new Date().toISOString();
      await w.db
        .insertInto("skillsync_budgets")
        .values([
          { scope: dayScope(), limit_credits: 500, reserved: 12.5, updated_at: now },
          { scope: monthScope(), limit_credits: null, reserved: 80, updated_at: now },
        ])
        .execute();
      await insertAlerts(w.db, [...Array.from({ length: 12 }, (_, i) => alert(i + 1)), alert(13, true)]);

      const o = await readOverview(w, { days: 1, prices: PRICES });
      expect(o.days).toHaveLength(1);
      expect(o.budget).toEqual({ dailyLimit: 500, monthlyLimit: null, spentToday: 12.5, spentThisMonth: 80 });
      expect(o.latestAlerts.map((a) => a.key)).toEqual([
        "k12",
        "k11",
        "k10",
        "k9",
        "k8",
        "k7",
        "k6",
        "k5",
        "k4",
        "k3",
      ]);
      expect(o.latestAlerts[0]).toMatchObject({
        watch: "price-drop",
        table: "prices",
        column: "price",
        from: "22",
        to: "21",
        at: "2026-11-01T00:12:00.000Z",
        loadId: 12,
      });
      expect(o.latestAlerts[0]?.alertId).toMatch(/^al_/);
    });
  });
}
