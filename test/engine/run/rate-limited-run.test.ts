import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { cli } from "../../helpers/cli.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { writePriceFile } from "../../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { builtin } from "../fixtures.js";

describe.each(WAREHOUSE_KINDS)("a run under a rate limit (%s)", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("succeeds with every call paid once, and counts the refusals in its summary, runs and --json", async () => {
      const { emulator, client } = await emulatorWithClient({ rateLimit: { perSecond: 10 }, latencyMs: 20 });
      const url = freshWarehouseUrl(kind);
      const w = await openWarehouse(url);
      try {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: builtin("marketplace-search"),
          params: { keyword: Array.from({ length: 40 }, (_, i) => `limited ${i}`) },
          concurrency: 16,
        });
        expect(s).toMatchObject({ status: "succeeded", counters: { callsDone: 40, callsFailed: 0 } });
        expect(s.counters.rateLimited).toBeGreaterThan(0);
        // A refused request was not processed: the emulator charged each call once.
        expect(emulator.ledger().totalCredits).toBe(40);
        const row = await w.db
          .selectFrom("skillsync_runs")
          .select("rate_limited")
          .where("id", "=", s.runId)
          .executeTakeFirstOrThrow();
        expect(Number(row["rate_limited"])).toBe(s.counters.rateLimited);
        const detail = await cli(["runs", s.runId, "--db", url]);
        expect(detail.out).toContain(`rate limit: ${s.counters.rateLimited} request(s) refused with 429`);
        const json = JSON.parse((await cli(["runs", "--db", url, "--json"])).out) as {
          calls: { rateLimited: number };
        }[];
        expect(json[0]?.calls.rateLimited).toBe(s.counters.rateLimited);
      } finally {
        await w.close();
      }
    });
  });
});

describe("a skill's rate limit declared in the price file", () => {
  it("is read as calls per second; a wrong one is refused naming the skill", () => {
    const prices = loadPrices(writePriceFile("marketplace-search: { perCall: 1, rateLimit: 300/m }\n"));
    expect(prices.get("marketplace-search")).toEqual({ perCall: 1, rateLimit: 5, source: "file" });
    const bad = () => loadPrices(writePriceFile("marketplace-search: { perCall: 1, rateLimit: fast }\n"));
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/marketplace-search.*rateLimit/s);
  });

  it("paces that skill's calls below it: none refused", async () => {
    const { client } = await emulatorWithClient({ rateLimit: { perSecond: 5 } });
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    try {
      const started = Date.now();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params: { keyword: Array.from({ length: 10 }, (_, i) => `paced ${i}`) },
        concurrency: 8,
        prices: loadPrices(writePriceFile("marketplace-search: { perCall: 1, rateLimit: 5/s }\n")),
      });
      expect(s).toMatchObject({ status: "succeeded", counters: { callsDone: 10, rateLimited: 0 } });
      // 10 calls 200 ms apart.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1700);
    } finally {
      await w.close();
    }
  });
});
