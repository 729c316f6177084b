import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { setBudget } from "../../../store/budget-status.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { runChild } from "../child.js";

// Four run processes at once on one warehouse: a process trial, in the reliability suite
// (ceiling.test.ts holds the trials in one process).
describe.each(WAREHOUSE_KINDS)("credit ceilings on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("shares the daily budget between concurrent runs on one warehouse", async () => {
      const { emulator } = await emulatorWithClient({ latencyMs: 3, jitterMs: 5 });
      const url = freshWarehouseUrl(kind);
      const setup = await openWarehouse(url);
      await migrateToLatest(setup);
      await setBudget(setup, "daily", 17);
      await setup.close();
      // Separate processes, as separate `skillsync run` commands would be.
      const runs = await Promise.all(
        [0, 1, 2, 3].map((r) =>
          runChild(url, emulator.url, {
            spec: {
              pipelines: ["marketplace-search"],
              params: { keyword: Array.from({ length: 10 }, (_, i) => `r${r}-${i}`) },
              concurrency: 4,
            },
          }),
        ),
      );
      const summaries = runs.map(
        (r) =>
          JSON.parse(r.output.split("\n").filter(Boolean).at(-1)!) as { status: string; stopReason: string },
      );
      expect(emulator.ledger().totalCredits).toBe(17);
      // A run that started early may finish its 10 calls; the others stop at the shared ceiling.
      expect(summaries.filter((r) => r.status === "ceiling").length).toBeGreaterThanOrEqual(2);
      expect(summaries.every((r) => r.status === "ceiling" || r.status === "succeeded")).toBe(true);
      expect(summaries.map((r) => r.stopReason)).toContain(
        "stopped at the daily budget of 17 credits: the next call (1 credits) would pass it",
      );
    }, 120_000);
  });
});
