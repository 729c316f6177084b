import { describe, expect, it } from "vitest";
import { loadPrices, type Price } from "../../engine/define/prices.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer, waitForRun } from "./helpers.js";

// Issue 44: the server's daily budget of 45 billed 52 while /budget said 45, with nothing to say
// that its figures were the catalog's guesses.
const asFile = (over: Record<string, Price> = {}) =>
  new Map<string, Price>([
    ...[...loadPrices()].map(([slug, p]): [string, Price] => [slug, { ...p, source: "file" }]),
    ...Object.entries(over),
  ]);

describe.each(WAREHOUSE_KINDS)(
  "GET /budget and server runs say when credits are estimates, on %s",
  (kind) => {
    describe.skipIf(unavailable(kind))("", () => {
      it("/budget is estimated at the catalog's prices, not with a price file for what it serves", async () => {
        const guessed = await startTestServer(kind);
        const budget = await guessed.call("GET", "/budget");
        expect(budget.status).toBe(200);
        expect(budget.json).toMatchObject({ estimated: true, maxCreditsPerRun: 50 });

        const own = await startTestServer(kind, { prices: asFile() });
        expect((await own.call("GET", "/budget")).json.estimated).toBe(false);
        const post = await own.call("POST", "/runs", {
          pipeline: "marketplace-search",
          params: { keyword: ["usb hub"] },
          maxCredits: 10,
        });
        const run = await waitForRun(own, post.json.runId);
        expect(run).toMatchObject({ status: "succeeded", credits: { estimated: false } });

        const post2 = await guessed.call("POST", "/runs", {
          pipeline: "marketplace-search",
          params: { keyword: ["usb hub"] },
          maxCredits: 10,
        });
        expect(await waitForRun(guessed, post2.json.runId)).toMatchObject({ credits: { estimated: true } });
      });

      it("a server run over an operation priced 0 is refused under its ceiling (400): no call is sent", async () => {
        const zero = asFile({ "marketplace-search": { perCall: 0, source: "file" } });
        const body = {
          pipeline: "marketplace-search",
          params: { keyword: ["usb hub", "desk lamp"] },
          maxCredits: 10,
        };
        const t = await startTestServer(kind, { prices: zero });
        const post = await t.call("POST", "/runs", body);
        expect(post.status).toBe(400);
        expect(JSON.stringify(post.json)).toMatch(
          /marketplace-search is priced 0 by the price file: --max-credits 10 cannot bind on it/,
        );
        expect((await t.call("GET", "/runs")).json.runs).toEqual([]);
        expect(t.emulator.ledger().totalCalls).toBe(0);

        // With --allow-unpriced the run goes ahead and says the ceiling does not bind.
        const allowed = await startTestServer(kind, { prices: zero, allowUnpriced: true });
        const queued = await allowed.call("POST", "/runs", body);
        expect(queued.status).toBe(202);
        const run = await waitForRun(allowed, queued.json.runId);
        expect(run.status).toBe("succeeded");
        expect(JSON.stringify(run.warnings)).toMatch(/--allow-unpriced: marketplace-search is priced 0/);
      });
    });
  },
);
