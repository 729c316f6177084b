import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { prng } from "../../reliability/support/prng.js";
import { builtin } from "../fixtures.js";

describe.each(WAREHOUSE_KINDS)("credit ceilings on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("never overshoots --max-credits over randomized runs with concurrency > 1", async () => {
      // A sample of the reliability suite's ceiling trials (test/reliability/ceilings.test.ts).
      const trials = kind === "sqlite" ? 16 : 6;
      const { emulator, client } = await emulatorWithClient({ latencyMs: 2, jitterMs: 6 });
      for (let t = 0; t < trials; t++) {
        const rnd = prng(1000 + t);
        const price = [0.5, 1, 1.5, 2, 3.25][Math.floor(rnd() * 5)]!;
        const ceiling = Math.round(rnd() * 30 * 4) / 4;
        const concurrency = 2 + Math.floor(rnd() * 15);
        const keywords = Array.from({ length: 5 + Math.floor(rnd() * 30) }, (_, i) => `t${t}-k${i}`);
        emulator.reset();
        const prices = new Map(loadPrices());
        prices.set("marketplace-search", { perCall: price });
        const w = await openWarehouse(freshWarehouseUrl(kind));
        try {
          await runPipelines({
            warehouse: w,
            client,
            pipelines: builtin("marketplace-search"),
            params: { keyword: keywords },
            maxCredits: ceiling,
            concurrency,
            prices,
          });
        } finally {
          await w.close();
        }
        const charged = emulator.ledger().chargedCalls * price;
        expect(
          charged,
          `trial ${t}: price ${price}, ceiling ${ceiling}, concurrency ${concurrency}`,
        ).toBeLessThanOrEqual(ceiling + 1e-9);
        // Everything that fit was used: the next call would have passed the ceiling.
        expect(charged + price).toBeGreaterThan(Math.min(ceiling, keywords.length * price) - 1e-9);
      }
    }, 120_000);
  });
});
