import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { resolveParams } from "../../../engine/define/params.js";
import { listBuiltinPipelines, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { callFactory, splitBatchValues } from "../../../engine/extract/planned-calls.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { catalog } from "../../../schema/catalog.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { pipelinesOf } from "../../reliability/support/child-spec.js";
import { PATENTS, paramsFor } from "../../reliability/support/fault-plan.js";

// Issue 20: a run reserves exactly what the service will bill. Prices differ from the catalog's
// (per identifier for the patent operations), the same table for the run and the emulator.
const PRICES: Record<string, number | { perItem: number }> = Object.fromEntries(
  [...catalog.values()].map((op) => [op.slug, op.family === "patent-identifier" ? { perItem: 0.5 } : 2]),
);
const priceTable = () => {
  const t = new Map(loadPrices());
  for (const [slug, p] of Object.entries(PRICES)) t.set(slug, typeof p === "number" ? { perCall: p } : p);
  return t;
};

/** Identifier inputs given the hostile way too: several per value, joined by the batch separator. */
function joinedParams(name: string, i: number): Record<string, string[]> {
  const params = paramsFor(name, i);
  if (!params["patent"] || !loadPipeline(name).batch) return params;
  return { patent: [PATENTS.slice(0, 5).join(","), ` ${PATENTS[5]} ,${PATENTS[6]}`, ...PATENTS.slice(6)] };
}

describe("priced as billed", () => {
  it("splits batch values at the separator", () => {
    expect(splitBatchValues(["US1,US2", "US2", " US3 ", ",", "US4,,US5"])).toEqual([
      "US1",
      "US2",
      "US3",
      "US4",
      "US5",
    ]);
  });

  it("prices a comma-joined value as the identifiers it sends", () => {
    const p = loadPipeline("patent-claims");
    const calls = callFactory(p, {}, priceTable(), (slug, body) => ({ slug, body: body as never })).all([
      PATENTS.join(","),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.items).toBe(PATENTS.length);
    expect(calls[0]!.credits).toBe(PATENTS.length * 0.5);
  });

  it("refuses a comma-joined identifier in a pipeline that sends one per call", () => {
    const p = loadPipeline("patent-fulltext-images");
    const f = callFactory(p, resolveParams(p.params, {}), priceTable(), (slug, body) => ({
      slug,
      body: body as never,
    }));
    expect(() => f.all(["US1,US2"])).toThrow(/2 identifiers separated by ","/);
  });

  const names = listBuiltinPipelines().map((f) => loadPipeline(f).name);
  it.each(names.map((n, i) => [n, i] as const))(
    "%s: the credits reserved equal the emulator's charge",
    async (name, i) => {
      const { emulator, client } = await emulatorWithClient({ prices: PRICES, reportPendingPolls: 1 });
      const w = await openWarehouse(freshWarehouseUrl("sqlite"));
      try {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: pipelinesOf({ pipelines: [name], fastPollMs: 5 }),
          params: joinedParams(name, i),
          prices: priceTable(),
          concurrency: 4,
        });
        expect(s.status).toBe("succeeded");
        const billed = emulator.ledger().totalCredits;
        expect(billed).toBeGreaterThan(0);
        expect(s.counters.creditsSpent).toBeCloseTo(billed, 9);
      } finally {
        await w.close();
      }
    },
    60_000,
  );

  describe.each(WAREHOUSE_KINDS)("ceilings with comma-joined and oversized values on %s", (kind) => {
    const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `US${4_000_000 + from + i}B2`);
    it.skipIf(unavailable(kind))(
      "0 overshoot on the emulator's ledger",
      async () => {
        const { emulator, client } = await emulatorWithClient({ latencyMs: 2, jitterMs: 4 });
        const cases: { values: string[]; maxCredits: number }[] = [
          // The case: one value of 100 identifiers under a 1-credit ceiling.
          { values: [ids(100).join(",")], maxCredits: 1 },
          { values: [ids(100).join(",")], maxCredits: 99 },
          { values: [ids(60).join(","), ids(60, 60).join(","), ...ids(30, 120)], maxCredits: 150 },
          { values: [ids(100, 100).join(", "), ids(100, 200).join(" ,"), ...ids(50, 300)], maxCredits: 7.5 },
          { values: [ids(100).join(","), ids(100).join(",")], maxCredits: 100 },
        ];
        for (const [i, c] of cases.entries()) {
          emulator.reset();
          const w = await openWarehouse(freshWarehouseUrl(kind));
          try {
            await runPipelines({
              warehouse: w,
              client,
              pipelines: [loadPipeline("patent-claims")],
              params: { patent: c.values },
              maxCredits: c.maxCredits,
              concurrency: 8,
            });
          } finally {
            await w.close();
          }
          expect(emulator.ledger().totalCredits, `case ${i}`).toBeLessThanOrEqual(c.maxCredits);
        }
        // One value of more identifiers than one call carries is refused before anything is sent.
        emulator.reset();
        const w0 = await openWarehouse(freshWarehouseUrl(kind));
        try {
          await expect(
            runPipelines({
              warehouse: w0,
              client,
              pipelines: [loadPipeline("patent-claims")],
              params: { patent: [ids(101).join(",")] },
              maxCredits: 1_000,
            }),
          ).rejects.toThrow(/holds 101 identifiers; one value carries at most 100/);
        } finally {
          await w0.close();
        }
        expect(emulator.ledger().totalCredits).toBe(0);
        // An identifier longer than the contract allows is refused before anything is sent.
        emulator.reset();
        const w = await openWarehouse(freshWarehouseUrl(kind));
        try {
          await expect(
            runPipelines({
              warehouse: w,
              client,
              pipelines: [loadPipeline("patent-claims")],
              params: { patent: [`US${"9".repeat(61_000)}`] },
              maxCredits: 1_000,
            }),
          ).rejects.toThrow(/60000/);
        } finally {
          await w.close();
        }
        expect(emulator.ledger().totalCredits).toBe(0);
      },
      60_000,
    );
  });
});
