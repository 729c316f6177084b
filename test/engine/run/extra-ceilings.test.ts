import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { runPipelines } from "../../../engine/run/runner.js";
import type { Ceiling } from "../../../store/budget.js";
import { ceilingStatuses } from "../../../store/budget-status.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { builtin } from "../fixtures.js";

describe.each(WAREHOUSE_KINDS)("a ceiling shared by several runs (an MCP server's total) on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("holds over runs one after another and at once, each with a larger ceiling of its own", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 2, jitterMs: 4 });
      const w = await openWarehouse(freshWarehouseUrl(kind));
      const total: Ceiling = { scope: `mcp:${randomUUID()}`, limit: 13, label: "total of this MCP server" };
      const run = (tag: string) =>
        runPipelines({
          warehouse: w,
          client,
          pipelines: builtin("marketplace-search"),
          params: { keyword: Array.from({ length: 5 }, (_, i) => `${tag}-${i}`) },
          maxCredits: 100,
          ceilings: [total],
          concurrency: 4,
        });
      try {
        await migrateToLatest(w);
        expect(await ceilingStatuses(w, [total])).toEqual([{ limit: 13, spent: 0, remaining: 13 }]);
        const first = await run("a");
        expect(first).toMatchObject({ status: "succeeded", counters: { creditsSpent: 5 } });
        expect(await ceilingStatuses(w, [total])).toEqual([{ limit: 13, spent: 5, remaining: 8 }]);
        // Three at once: 15 credits asked, 8 left.
        const together = await Promise.all([run("b"), run("c"), run("d")]);
        expect(together.map((s) => s.status)).toContain("ceiling");
        expect(together.map((s) => s.stopReason)).toContain(
          "stopped at the total of this MCP server of 13 credits: the next call (1 credits) would pass it",
        );
        expect(emulator.ledger().totalCredits).toBe(13);
        expect(await ceilingStatuses(w, [total])).toEqual([{ limit: 13, spent: 13, remaining: 0 }]);
        const after = await run("e");
        expect(after).toMatchObject({ status: "ceiling", counters: { creditsSpent: 0 } });
        expect(emulator.ledger().totalCredits).toBe(13);
      } finally {
        await w.close();
      }
    }, 60_000);
  });
});
