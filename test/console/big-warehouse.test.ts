import { describe, expect, it } from "vitest";
import { readChanges } from "../../engine/publish/changes.js";
import { recentWarehouseRuns } from "../../engine/publish/run-and-pipeline-views.js";
import { listAlerts } from "../../store/alerts.js";
import { runDetail } from "../../store/run-detail.js";
import { readStates } from "../../store/schedule-state.js";
import { afterTest } from "../helpers/after-test.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { bigWarehouse } from "./support/big-warehouse.js";

const DAY_MS = 86_400_000;

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`the console's big warehouse, small (${kind})`, () => {
    it("holds the runs and rows asked for, read by `runs` and `changes` as any warehouse", async () => {
      const now = new Date("2026-11-29T12:00:00.000Z");
      const big = await bigWarehouse(freshWarehouseUrl(kind), { runs: 200, rows: 20_000, now });
      afterTest(() => big.close());
      const w = big.warehouse;

      const runs = await recentWarehouseRuns(w, 1000);
      expect(runs).toHaveLength(200);
      expect(new Set(runs.map((r) => r.runId))).toEqual(new Set(big.runIds));
      for (const r of runs) {
        const at = Date.parse(String(r.startedAt));
        expect(at).toBeLessThan(now.getTime());
        expect(at).toBeGreaterThanOrEqual(now.getTime() - 60 * DAY_MS);
      }
      expect(new Set(runs.map((r) => r.trigger))).toEqual(new Set(["manual", "schedule", "server", "mcp"]));
      expect(new Set(runs.map((r) => r.status))).toContain("failed");

      const count = async (table: string) =>
        Number(
          (
            await w.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const price = await count(big.priceSource);
      const status = (await count(big.statusTable)) + (await count(big.statusEvents));
      expect(price).toBe(18_000);
      expect(price + status).toBe(20_000);
      const loaded = await w.db
        .selectFrom("skillsync_loads")
        .select((eb) => eb.fn.sum("rows_inserted").as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(loaded.n)).toBe(20_000);

      const history = await w.db
        .selectFrom(big.priceTable)
        .selectAll()
        .where("asin", "=", big.priceKey.asin)
        .orderBy("load_id")
        .execute();
      expect(history).toHaveLength(big.priceKey.versions);
      expect(big.priceKey.versions).toBeGreaterThanOrEqual(5);
      expect(new Set(history.map((h) => Number(h["price"]))).size).toBeGreaterThan(3);

      const changes = await readChanges(w, {
        table: big.statusTable,
        keys: { publication_number: big.statusKey },
      });
      expect(changes.filter((c) => c["change"] === "added")).toHaveLength(1);
      expect(changes.filter((c) => c["column_name"] === "legal_status").map((c) => c["new_value"])).toEqual([
        "granted",
        "lapsed",
        "reinstated",
      ]);
      expect((await readChanges(w, { table: big.statusTable, since: "last" })).length).toBeGreaterThan(0);

      // The run's counters are its ledger's sums.
      for (const id of big.runIds.slice(0, 40)) {
        const d = (await runDetail(w, id))!;
        const [p] = d.pipelines;
        expect(Number(d.run["credits_spent"])).toBeCloseTo(p!.credits, 6);
        expect(Number(d.run["calls_planned"])).toBe(p!.calls);
        expect(Number(d.run["calls_done"])).toBe(p!.paid);
        expect(Number(d.run["calls_cached"])).toBe(p!.fromStore);
        expect(Number(d.run["calls_failed"])).toBe(p!.failed);
        expect(Number(d.run["rows_written"])).toBe(p!.rows);
        expect(Number(d.run["rows_rejected"])).toBe(p!.rejects);
      }

      const states = await readStates(w);
      expect(states.filter((s) => s.paused).map((s) => s.pipeline)).toEqual(["patent-family"]);
      expect((await listAlerts(w.db, {})).length).toBeGreaterThanOrEqual(3);
    }, 120_000);
  });
}
