import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { runChild } from "../child.js";
import { rows } from "../fixtures.js";
import { ids, paidPerItem, shuffled } from "./item-ids.js";

// Two run processes at once on one warehouse: a process trial, in the reliability suite
// (item-reuse.test.ts holds the trials in one process).
describe.each(WAREHOUSE_KINDS)("per-item reuse on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("two processes at once with overlapping lists: each item paid once, awaited by the other", async () => {
      // Latency keeps each batch in flight while the other process plans and reserves.
      const { emulator } = await emulatorWithClient({ latencyMs: 300 });
      const db = freshWarehouseUrl(kind);
      // A child that starts late finds the overlap stored instead of in flight: still paid once.
      const startAt = Date.now() + 2500;
      const spec = (patent: string[]) => ({
        pipelines: ["patent-bibliography"],
        params: { patent },
        concurrency: 2,
        startAt,
      });
      const outs = await Promise.all([
        runChild(db, emulator.url, { spec: spec(shuffled(ids(150), 1)) }),
        runChild(db, emulator.url, { spec: spec(shuffled(ids(150, 75), 2)) }),
      ]);
      for (const o of outs) expect(o.output).toContain('"status":"succeeded"');
      const paid = paidPerItem(emulator);
      expect(paid.size).toBe(225);
      expect([...paid.entries()].filter(([, n]) => n !== 1)).toEqual([]);
      const w = await openWarehouse(db);
      try {
        const shared = await rows<{ n: number }>(w, "select sum(items_reused) as n from skillsync_runs");
        // The overlap came from the store or from the other process's call, not from the API.
        expect(Number(shared[0]?.n)).toBe(75);
      } finally {
        await w.close();
      }
    }, 120_000);
  });
});
