import { afterEach, describe, expect, it } from "vitest";
import { catalog, getOperation } from "../../schema/catalog.js";
import { envelopeSchema } from "../../schema/envelope.js";
import { emulators, post, VALID_REQUESTS } from "./helpers.js";

const emus = emulators();
afterEach(() => emus.stopAll());

function expectValid(slug: string, json: unknown) {
  const env = envelopeSchema.parse(json);
  expect(env.code).toBe(0);
  expect(env.msg).toBe("success");
  const parsed = getOperation(slug)?.data.safeParse(env.data);
  expect(parsed?.success, `${slug}: ${JSON.stringify(parsed?.error?.issues)}`).toBe(true);
  return env;
}

describe("every documented operation", () => {
  it("answers a valid request with an envelope whose data passes the operation's data schema", async () => {
    const emu = await emus.start();
    const answered = new Set<string>();
    for (const [slug, body] of Object.entries(VALID_REQUESTS)) {
      const res = await post(emu, slug, body);
      expect(res.status, `${slug}: ${res.text.slice(0, 300)}`).toBe(200);
      expectValid(slug, res.json);
      answered.add(slug);
    }
    const created = await post(
      emu,
      "marketplace-ads-sp-audience-report",
      VALID_REQUESTS["marketplace-ads-sp-audience-report"],
    );
    const reportId = created.json.data.reportId as string;
    let parts: { documentToken: string }[] | null = null;
    for (let i = 0; i < 5 && !parts; i++) {
      const status = await post(emu, "marketplace-ads-sp-insights-report-status", {
        connectionId: 1,
        reportId,
      });
      expectValid("marketplace-ads-sp-insights-report-status", status.json);
      parts = status.json.data.completedReportParts;
    }
    answered.add("marketplace-ads-sp-insights-report-status");
    const download = await post(emu, "marketplace-ads-sp-insights-report-download", {
      connectionId: 1,
      documentToken: parts?.[0]?.documentToken,
    });
    expectValid("marketplace-ads-sp-insights-report-download", download.json);
    answered.add("marketplace-ads-sp-insights-report-download");
    expect([...answered].sort()).toEqual([...catalog.keys()].sort());
    expect(catalog.size).toBe(23);
  });

  it("answers the envelope exactly as contract 2.1 says: ts, time, cost, unique traceId", async () => {
    const emu = await emus.start();
    const before = Date.now();
    const a = await post(emu, "marketplace-search", { keyword: "mug" });
    const b = await post(emu, "marketplace-search", { keyword: "mug" });
    expect(Object.keys(a.json).sort()).toEqual(["code", "cost", "data", "msg", "time", "traceId", "ts"]);
    expect(Number(a.json.ts)).toBeGreaterThanOrEqual(before);
    expect(Number(a.json.ts)).toBeLessThanOrEqual(Date.now());
    expect(a.json.time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(a.json.cost).toMatch(/^\d+$/);
    expect(typeof a.json.traceId).toBe("string");
    expect(a.json.traceId).not.toBe(b.json.traceId);
    expect(a.headers.get("content-type")).toContain("application/json");
  });

  it("is deterministic: the same request gives the same data, in this run and in a fresh emulator", async () => {
    const first = await emus.start();
    const second = await emus.start();
    for (const [slug, body] of Object.entries(VALID_REQUESTS)) {
      const a = await post(first, slug, body);
      const b = await post(first, slug, body);
      const c = await post(second, slug, body);
      if (getOperation(slug)?.reportRole === "create") {
        // A second create is a second report; the n-th create has the same id in every run.
        expect(a.json.data.reportId).not.toBe(b.json.data.reportId);
        expect(c.json.data).toEqual(a.json.data);
      } else {
        expect(b.json.data, slug).toEqual(a.json.data);
        expect(c.json.data, slug).toEqual(a.json.data);
      }
    }
  });

  it("derives data from the request: another keyword or page gives other products", async () => {
    const emu = await emus.start();
    const a = await post(emu, "marketplace-search", { keyword: "desk lamp", page: 1 });
    const b = await post(emu, "marketplace-search", { keyword: "desk lamp", page: 2 });
    const c = await post(emu, "marketplace-search", { keyword: "floor lamp", page: 1 });
    const asins = (r: typeof a) => r.json.data.products.map((p: { asin: string }) => p.asin);
    expect(asins(a)).not.toEqual(asins(b));
    expect(asins(a)).not.toEqual(asins(c));
  });
});
