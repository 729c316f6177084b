import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { afterTest } from "../../helpers/after-test.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";
import { builtin } from "../fixtures.js";

// An operation in neither the price file nor the catalog is reserved at a guess of 1 credit a call:
// a ceiling over it binds nothing the service bills.
describe("a ceiling over an unpriced operation", () => {
  it("is refused before the run starts; allowUnpriced runs it with a warning", async () => {
    const { emulator, client } = await emulatorWithClient();
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    afterTest(() => w.close());
    const prices = new Map(loadPrices());
    prices.delete("marketplace-search");
    const run = { warehouse: w, client, pipelines: builtin("marketplace-search"), prices, maxCredits: 3 };
    const params = { keyword: ["usb hub"] };

    const refused = runPipelines({ ...run, params });
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(refused).rejects.toThrow(
      /marketplace-search is unpriced \(in neither the price file nor the catalog: 1 credit a call is a guess\): --max-credits 3 cannot bind on it/,
    );
    expect(emulator.ledger().totalCalls).toBe(0);

    const allowed = await runPipelines({ ...run, params, allowUnpriced: true });
    expect(allowed.status).toBe("succeeded");
    expect(allowed.creditsEstimated).toBe(true);
    expect(allowed.priceWarnings).toEqual([
      expect.stringMatching(
        /^--allow-unpriced: marketplace-search is unpriced .*--max-credits 3 does not bind on its calls$/,
      ),
    ]);

    // Without a ceiling there is nothing to refuse.
    const free = await runPipelines({ ...run, maxCredits: undefined, params: { keyword: ["lamp"] } });
    expect(free.priceWarnings).toEqual([]);
  });
});
