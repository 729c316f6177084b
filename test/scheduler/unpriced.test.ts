import { describe, expect, it } from "vitest";
import { loadPrices, type Price } from "../../engine/define/prices.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { openTracked, startTracked, tempDir, until, writeScheduledPipeline } from "./fixtures.js";

// Issue 44: `schedule --allow-unpriced` runs a schedule whose ceiling cannot bind an operation, and
// each tick's log says so; without it the tick's run is refused before any call.
const zeroPriced = new Map<string, Price>([
  ...loadPrices(),
  ["marketplace-search", { perCall: 0, source: "file" }],
]);

describe("a scheduled run and its prices", () => {
  it("over an operation priced 0: refused at its tick without --allow-unpriced, run with a warning in the log with it", async () => {
    const { emulator, client } = await emulatorWithClient();
    const file = writeScheduledPipeline(tempDir(), { schedule: "  maxCredits: 5" });

    const refused = await startTracked({
      warehouse: await openTracked(freshWarehouseUrl("sqlite")),
      client,
      files: [file],
      prices: zeroPriced,
    });
    await until(async () => refused.scheduler.ticks.length > 0, 15_000, "a tick of the refused schedule");
    await refused.scheduler.stop();
    expect(refused.lines.join("\n")).toMatch(/marketplace-search is priced 0 by the price file/);
    expect(emulator.ledger().totalCalls).toBe(0);

    const allowed = await startTracked({
      warehouse: await openTracked(freshWarehouseUrl("sqlite")),
      client,
      files: [file],
      prices: zeroPriced,
      allowUnpriced: true,
    });
    await until(
      async () =>
        allowed.lines.some((l) => l.includes("warning: --allow-unpriced: marketplace-search is priced 0")),
      15_000,
      "the tick's warning",
    );
    await allowed.scheduler.stop();
    expect(emulator.ledger().totalCalls).toBeGreaterThan(0);
    // Priced by the price file (at 0): the tick's credits are no estimate.
    expect(allowed.lines.join("\n")).toMatch(/succeeded: .* 0 credits, /);
  });

  it("says a tick's credits are estimated when the catalog priced them", async () => {
    const { client } = await emulatorWithClient();
    const file = writeScheduledPipeline(tempDir());
    const guessed = await startTracked({
      warehouse: await openTracked(freshWarehouseUrl("sqlite")),
      client,
      files: [file],
    });
    await until(async () => guessed.lines.find((l) => / succeeded: /.test(l)), 15_000, "a tick's run");
    await guessed.scheduler.stop();
    expect(guessed.lines.find((l) => / succeeded: /.test(l))).toMatch(
      /1 credits \(estimated: catalog prices\), /,
    );
  });
});
