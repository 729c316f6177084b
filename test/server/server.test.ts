import { describe, expect, it } from "vitest";
import { DEMO_KEY } from "../../emulator/index.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { makeTables } from "../../engine/run/runner.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { SECRET, startTestServer, waitForRun } from "./helpers.js";

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync serve on ${kind}`, () => {
    it("runs a pipeline from POST /runs and serves its table", async () => {
      const t = await startTestServer(kind);
      const pipelines = await t.call("GET", "/pipelines");
      expect(pipelines.status).toBe(200);
      const search = pipelines.json.pipelines.find((p: { name: string }) => p.name === "marketplace-search");
      expect(search).toMatchObject({
        skill: "marketplace-search",
        params: { keyword: { required: true, repeatable: true } },
      });

      const post = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { keyword: ["usb hub", "desk lamp"] },
        maxCredits: 10,
      });
      expect(post.status).toBe(202);
      expect(post.json.runId).toMatch(/^q\d{14}-[0-9a-f]{8}$/);
      const run = await waitForRun(t, post.json.runId);
      expect(run).toMatchObject({
        status: "succeeded",
        pipeline: "marketplace-search",
        calls: { done: 2, planned: 2 },
      });
      expect(run.warehouseRunId).toMatch(/^r/);
      expect(run.credits.spent).toBeGreaterThan(0);
      expect(run.credits.spent).toBe(t.emulator.ledger().totalCredits);
      expect(run.rows.written).toBeGreaterThan(5);

      const tables = await t.call("GET", "/tables");
      const names = tables.json.tables.map((x: { name: string }) => x.name);
      expect(names).toContain("marketplace_search_results");
      expect(names.some((n: string) => n.startsWith("skillsync_"))).toBe(false);
      // Only what ran: the marketplace's tables and views, each with its row count.
      expect(names.filter((n: string) => !n.startsWith("marketplace_"))).toEqual([]);
      expect(
        tables.json.tables.find((x: { name: string }) => x.name === "marketplace_search_results").rows,
      ).toBe(run.rows.written);

      const page1 = await t.call(
        "GET",
        "/tables/marketplace_search_results?limit=5&columns=keyword,asin,sponsored,price",
      );
      expect(page1.status).toBe(200);
      expect(page1.json.total).toBe(run.rows.written);
      expect(page1.json.rows).toHaveLength(5);
      expect(Object.keys(page1.json.rows[0])).toEqual(["keyword", "asin", "sponsored", "price"]);
      expect(typeof page1.json.rows[0].sponsored).toBe("boolean");
      expect(page1.json.nextOffset).toBe(5);
      const page2 = await t.call(
        "GET",
        "/tables/marketplace_search_results?limit=5&offset=5&columns=keyword,asin,sponsored,price",
      );
      expect(page2.json.rows).toHaveLength(5);
      expect(page2.json.rows).not.toEqual(page1.json.rows);
      const all = await t.call("GET", `/tables/marketplace_search_results?limit=5000`);
      expect(all.json.rows).toHaveLength(run.rows.written);
      expect(new Set(all.json.rows.map((r: { run_id: string }) => r.run_id))).toEqual(
        new Set([run.warehouseRunId]),
      );

      const budget = await t.call("GET", "/budget");
      expect(budget.json).toMatchObject({
        maxCreditsPerRun: 50,
        daily: { spent: run.credits.spent, limit: null },
      });
      const list = await t.call("GET", "/runs");
      expect(list.json.runs[0].runId).toBe(post.json.runId);
      const byWarehouseId = await t.call("GET", `/runs/${run.warehouseRunId}`);
      expect(byWarehouseId.json).toMatchObject({ status: "succeeded", trigger: "server" });
    });

    it("lists the warehouse's runs whatever started them, failures included", async () => {
      const t = await startTestServer(kind, {}, { errorRate: 1 });
      const { SkillClient } = await import("../../connectors/skill-api/client.js");
      const { runPipelines } = await import("../../engine/run/runner.js");
      const { loadPipeline } = await import("../../engine/define/pipeline-file.js");
      const client = new SkillClient({ baseUrl: t.emulator.url, apiKey: "sk-demo-skillsync-local-0000" });
      const failed = await runPipelines({
        warehouse: t.warehouse,
        client,
        pipelines: [loadPipeline("marketplace-search")],
        params: { keyword: ["x"] },
        trigger: "schedule",
      });
      await client.close();
      const list = await t.call("GET", "/runs");
      expect(list.json.recent[0]).toMatchObject({
        runId: failed.runId,
        trigger: "schedule",
        status: "failed",
        calls: { failed: 1 },
      });
      expect(list.json.recent[0].errors[0].message).toMatch(/HTTP 50\d/);
    });

    it("refuses unsigned, wrongly signed, stale and replayed requests with 401, doing nothing", async () => {
      const t = await startTestServer(kind);
      const body = { pipeline: "marketplace-search", params: { keyword: ["usb hub"] } };
      const now = Math.floor(Date.now() / 1000);
      const unsigned = await fetch(`${t.server.url}/runs`, { method: "POST", body: JSON.stringify(body) });
      expect(unsigned.status).toBe(401);
      expect(((await unsigned.json()) as { error: object }).error).toMatchObject({
        code: "UNAUTHORIZED",
        reason: "SIGNATURE_MISSING",
      });
      const cases = [
        await t.call("POST", "/runs", body, { secret: "another-secret-of-enough-length-0123456789" }),
        await t.call("POST", "/runs", body, { signBody: JSON.stringify({ ...body, maxCredits: 1 }) }),
        await t.call("POST", "/runs", body, { signPath: "/runs?x=1" }),
        await t.call("POST", "/runs", body, { timestamp: now - 301 }),
        await t.call("POST", "/runs", body, { timestamp: now + 400 }),
        await t.call("POST", "/runs", body, { headers: { "X-Skillsync-Signature": "zz" } }),
      ];
      for (const c of cases) {
        expect(c.status).toBe(401);
        expect(c.json.error.message).toBeTruthy();
      }
      expect(cases.map((c) => c.json.error.reason)).toEqual([
        "SIGNATURE_INVALID",
        "SIGNATURE_INVALID",
        "SIGNATURE_INVALID",
        "TIMESTAMP_OUT_OF_WINDOW",
        "TIMESTAMP_OUT_OF_WINDOW",
        "SIGNATURE_INVALID",
      ]);
      expect(cases[3]!.json.error.message).toMatch(/away from the server's clock/);

      // A replay: the same signed request (same timestamp, same signature) a second time.
      const ts = now;
      const first = await t.call("GET", "/budget", undefined, { timestamp: ts });
      const again = await t.call("GET", "/budget", undefined, { timestamp: ts });
      expect(first.status).toBe(200);
      expect(again.status).toBe(401);
      expect(again.json.error).toMatchObject({ code: "UNAUTHORIZED", reason: "SIGNATURE_REPLAYED" });
      expect(again.json.error.message).toMatch(/replay/);

      expect((await t.call("GET", "/runs")).json.runs).toEqual([]);
      expect(t.emulator.ledger().totalCalls).toBe(0);
    });

    it("checks table and column names against the warehouse, and page sizes", async () => {
      const t = await startTestServer(kind);
      // Made ahead of a first run, as `migrate --pipelines` does: empty, but there.
      await makeTables(t.warehouse, [loadPipeline("marketplace-search")]);
      const unknown = await t.call("GET", "/tables/no_such_table");
      expect(unknown.status).toBe(404);
      expect(unknown.json.error.code).toBe("UNKNOWN_TABLE");
      const injected = await t.call(
        "GET",
        `/tables/${encodeURIComponent("marketplace_search_results; drop table x")}`,
      );
      expect(injected.status).toBe(404);
      expect((await t.call("GET", "/tables/skillsync_calls")).status).toBe(404);
      const badColumn = await t.call(
        "GET",
        `/tables/marketplace_search_results?columns=asin,${encodeURIComponent('"x"; drop')}`,
      );
      expect(badColumn.status).toBe(400);
      expect(badColumn.json.error.issues[0]).toMatchObject({
        path: ["columns"],
        message: expect.stringMatching(/unknown column/),
      });
      const tooMany = await t.call("GET", "/tables/marketplace_search_results?limit=5001");
      expect(tooMany.status).toBe(400);
      const badOffset = await t.call("GET", "/tables/marketplace_search_results?offset=-1");
      expect(badOffset.status).toBe(400);
      const empty = await t.call("GET", "/tables/marketplace_search_results");
      expect(empty.json).toMatchObject({ total: 0, rows: [], nextOffset: null });
      expect((await t.call("GET", "/nowhere")).status).toBe(404);
      expect((await t.call("DELETE", "/tables")).status).toBe(405);
    });

    it("validates run requests before queuing: body size, JSON, pipeline, params, credit ceiling", async () => {
      const t = await startTestServer(kind);
      const big = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { keyword: ["x".repeat(70_000)] },
      });
      expect(big.status).toBe(413);
      expect(big.json.error.code).toBe("BODY_TOO_LARGE");
      expect((await t.call("POST", "/runs", "{not json")).status).toBe(400);
      const above = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { keyword: "a" },
        maxCredits: 51,
      });
      expect(above.status).toBe(400);
      expect(above.json.error.issues[0]).toMatchObject({
        path: ["maxCredits"],
        message: expect.stringMatching(/ceiling of 50/),
      });
      const noPipeline = await t.call("POST", "/runs", { pipeline: "../../etc/passwd" });
      expect(noPipeline.status).toBe(400);
      const badParams = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { pages: "many", colour: "red" },
      });
      expect(badParams.status).toBe(400);
      const paths = badParams.json.error.issues.map((i: { path: string[] }) => i.path[0]).sort();
      expect(paths).toEqual(["colour", "keyword", "pages"]);
      const extra = await t.call("POST", "/runs", {
        pipeline: "marketplace-search",
        params: { keyword: "a" },
        sql: "x",
      });
      expect(extra.status).toBe(400);
      expect((await t.call("GET", "/runs")).json.runs).toEqual([]);
      expect(t.emulator.ledger().totalCalls).toBe(0);
    });

    it("logs one line per request, without the secret, signatures or the API key", async () => {
      const t = await startTestServer(kind);
      const r = await t.call("GET", "/budget");
      await t.call("GET", "/tables/nope?limit=1");
      await fetch(`${t.server.url}/pipelines`);
      expect(t.logs).toHaveLength(3);
      expect(t.logs[0]).toMatch(/^GET \/budget 200 \d+ms$/);
      expect(t.logs[1]).toMatch(/^GET \/tables\/nope 404 \d+ms$/);
      expect(t.logs[2]).toMatch(/^GET \/pipelines 401 \d+ms$/);
      const text = t.logs.join("\n");
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(DEMO_KEY);
      expect(text).not.toMatch(/[0-9a-f]{64}/);
      expect(r.status).toBe(200);
    });
  });
}
