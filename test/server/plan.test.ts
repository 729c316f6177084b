import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer, waitForRun } from "./helpers.js";

/** What `skillsync plan --json` says on a fresh warehouse of the same kind. */
async function cliPlan(kind: (typeof WAREHOUSE_KINDS)[number], args: string[]) {
  const r = await cli(["plan", ...args, "--db", freshWarehouseUrl(kind), "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`POST /plan on ${kind}`, () => {
    it("prices a run as `skillsync plan` does, sends nothing, and counts what the store already holds", async () => {
      const t = await startTestServer(kind);
      const body = {
        pipeline: "marketplace-search",
        params: { keyword: ["desk lamp", "usb hub"], pages: 2 },
      };
      const plan = await t.call("POST", "/plan", { ...body, maxCredits: 3 });
      expect(plan.status, plan.text).toBe(200);
      const expected = await cliPlan(kind, [
        "marketplace-search",
        "--param",
        "keyword=desk lamp",
        "--param",
        "keyword=usb hub",
        "--param",
        "pages=2",
      ]);
      expect(plan.json.pipelines[0]).toMatchObject({
        calls: expected.pipelines[0].calls,
        fromStore: 0,
        credits: expected.credits,
        creditsAtMost: expected.creditsAtMost,
      });
      expect(plan.json).toMatchObject({ credits: expected.credits, creditsAtMost: expected.creditsAtMost });
      expect(plan.json.maxCredits).toBe(3);
      expect(plan.json.ceilingBelowAtMost).toBe(3 < expected.creditsAtMost);
      expect(t.emulator.ledger().totalCalls).toBe(0);

      // After a run of one keyword, its calls come from the store: fewer credits now.
      const run = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { keyword: ["desk lamp"] },
      });
      expect((await waitForRun(t, run.json.runId)).status).toBe("succeeded");
      const paid = t.emulator.ledger().totalCalls;
      const again = await t.call("POST", "/plan", body);
      expect(again.json.pipelines[0].fromStore).toBe(1);
      expect(again.json.credits).toBeLessThan(plan.json.credits);
      expect(again.json.ceilingBelowAtMost).toBe(false);
      expect(t.emulator.ledger().totalCalls).toBe(paid);
    });

    it("refuses what POST /runs refuses, with 400, and only takes POST", async () => {
      const t = await startTestServer(kind);
      const unknown = await t.call("POST", "/plan", { pipeline: "nope", params: {} });
      expect(unknown.status).toBe(400);
      expect(unknown.json.error.issues[0].message).toMatch(/no pipeline "nope"/);
      expect((await t.call("POST", "/plan", "{not json")).status).toBe(400);
      const above = await t.call("POST", "/plan", {
        pipeline: "marketplace-search",
        params: { keyword: ["x"] },
        maxCredits: 10_000,
      });
      expect(above.status).toBe(400);
      expect((await t.call("GET", "/plan")).status).toBe(405);
      expect(t.emulator.ledger().totalCalls).toBe(0);
    });
  });
}
