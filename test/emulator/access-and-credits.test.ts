import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson, DEMO_KEY } from "../../emulator/index.js";
import { envelopeSchema } from "../../schema/envelope.js";
import { emulators, post } from "./helpers.js";

const emus = emulators();
afterEach(() => emus.stopAll());

const sha = (v: unknown) => createHash("sha256").update(canonicalJson(v)).digest("hex");

function expectErrorEnvelope(json: unknown, code: number) {
  const env = envelopeSchema.parse(json);
  expect(env.code).toBe(code);
  expect(env.data).toBeNull();
  expect(env.msg).toBeTruthy();
  return env;
}

describe("refused requests are answered with an error envelope and never charged", () => {
  it("invalid bodies get 400 with every issue listed", async () => {
    const emu = await emus.start();
    const res = await post(emu, "websearch-patent-search", { q: "", num: 5, color: "red" });
    expect(res.status).toBe(400);
    const env = expectErrorEnvelope(res.json, 400);
    expect(env.msg).toContain("q must not be empty");
    expect(env.msg).toContain("num");
    expect(env.msg).toContain("color");
    const noId = await post(emu, "patent-claims", {});
    expect(noId.status).toBe(400);
    expect(noId.json.msg).toContain("give patentId or patentNumber");
    const tooMany = await post(emu, "patent-family-data", {
      patentNumber: Array.from({ length: 101 }, (_, i) => `US${i}`).join(","),
    });
    expect(tooMany.status).toBe(400);
    const ledger = emu.ledger();
    expect(ledger.totalCredits).toBe(0);
    expect(ledger.chargedCalls).toBe(0);
    expect(ledger.calls.map((c) => c.status)).toEqual(["invalid", "invalid", "invalid"]);
  });

  it("bad JSON, a non-object body and a non-POST method get 400; an undocumented slug 404", async () => {
    const emu = await emus.start();
    expect((await post(emu, "marketplace-search", null, { raw: "{not json" })).status).toBe(400);
    expect((await post(emu, "marketplace-search", null, { raw: "[1,2]" })).status).toBe(400);
    const get = await post(emu, "marketplace-search", null, { method: "GET" });
    expect(get.status).toBe(400);
    expectErrorEnvelope(get.json, 400);
    const unknown = await post(emu, "marketplace-keyword-trends", { keyword: "x" });
    expect(unknown.status).toBe(404);
    expectErrorEnvelope(unknown.json, 404);
    const offPath = await fetch(`${emu.url}/api/skill-api/v2/whatever`, { method: "POST" });
    expect(offPath.status).toBe(404);
    expect(emu.ledger().totalCredits).toBe(0);
  });

  it("no key or an unknown key gets 401; a denied family 403; too small a balance 402", async () => {
    const emu = await emus.start({
      keys: [
        { key: "sk-full-access-1111" },
        { key: "sk-no-ads-2222", deny: ["advertising", "ip-risk"] },
        { key: "sk-poor-3333", balance: 2 },
      ],
    });
    expect((await post(emu, "marketplace-search", { keyword: "a" }, { key: null })).status).toBe(401);
    expect((await post(emu, "marketplace-search", { keyword: "a" }, { key: "sk-wrong-9999" })).status).toBe(
      401,
    );
    expect((await post(emu, "marketplace-search", { keyword: "a" }, { key: DEMO_KEY })).status).toBe(401);
    const denied = await post(
      emu,
      "marketplace-ads-sp-audience-report",
      { connectionId: 1, startDate: "2025-01-01", endDate: "2025-01-02" },
      { key: "sk-no-ads-2222" },
    );
    expect(denied.status).toBe(403);
    expectErrorEnvelope(denied.json, 403);
    expect((await post(emu, "marketplace-search", { keyword: "a" }, { key: "sk-no-ads-2222" })).status).toBe(
      200,
    );
    // Balance 2: two 1-credit calls pass, the third is refused; a 3-identifier call never fits.
    expect(
      (await post(emu, "patent-claims", { patentNumber: "A1,B2,C3" }, { key: "sk-poor-3333" })).status,
    ).toBe(402);
    expect((await post(emu, "marketplace-search", { keyword: "a" }, { key: "sk-poor-3333" })).status).toBe(
      200,
    );
    expect((await post(emu, "marketplace-search", { keyword: "b" }, { key: "sk-poor-3333" })).status).toBe(
      200,
    );
    const broke = await post(emu, "marketplace-search", { keyword: "c" }, { key: "sk-poor-3333" });
    expect(broke.status).toBe(402);
    expectErrorEnvelope(broke.json, 402);
    const ledger = emu.ledger();
    expect(ledger.totalCredits).toBe(3);
    expect(ledger.calls.map((c) => c.status)).toEqual([
      "unauthorized",
      "unauthorized",
      "unauthorized",
      "forbidden",
      "ok",
      "payment-required",
      "ok",
      "ok",
      "payment-required",
    ]);
    expect(JSON.stringify(ledger)).not.toContain("sk-");
    emu.reset();
    expect((await post(emu, "marketplace-search", { keyword: "d" }, { key: "sk-poor-3333" })).status).toBe(
      200,
    );
  });
});

describe("prices and the ledger", () => {
  it("charges default prices per call and per identifier asked for, unknown identifiers included", async () => {
    const emu = await emus.start();
    await post(emu, "marketplace-search", { keyword: "mug" });
    await post(emu, "vendorb-gun-parts-search", { imageUrl: "https://img.example/a.jpg" });
    await post(emu, "patent-claims", { patentNumber: "US11234567B2, not-a-number ,EP3456789A1" });
    const ledger = emu.ledger();
    expect(ledger.operations["marketplace-search"]).toEqual({ calls: 1, charged: 1, credits: 1 });
    expect(ledger.operations["vendorb-gun-parts-search"]).toEqual({ calls: 1, charged: 1, credits: 5 });
    expect(ledger.operations["patent-claims"]).toEqual({ calls: 1, charged: 1, credits: 3 });
    expect(ledger.totalCredits).toBe(9);
  });

  it("takes price overrides per call and per item", async () => {
    const emu = await emus.start({ prices: { "marketplace-search": 7, "patent-claims": { perItem: 2.5 } } });
    await post(emu, "marketplace-search", { keyword: "mug" });
    await post(emu, "patent-claims", { patentId: "US11234567B2,EP3456789A1", patentNumber: "X1,X2,X3,X4" });
    const ledger = emu.ledger();
    expect(ledger.operations["marketplace-search"]?.credits).toBe(7);
    // patentId wins: two identifiers asked for.
    expect(ledger.operations["patent-claims"]?.credits).toBe(5);
  });

  it("hashes the canonical validated body, so a repeated request shows up as the same bodyHash", async () => {
    const emu = await emus.start();
    await post(emu, "websearch-patent-search", { q: "drone", page: 2 });
    await post(emu, "websearch-patent-search", null, { raw: '{"page":2,"q":"drone","num":10}' });
    await post(emu, "websearch-patent-search", { q: "drone", page: 3 });
    const calls = emu.ledger().calls;
    const validated = { q: "drone", num: 10, page: 2, patents: true, scholar: false };
    expect(calls[0]?.bodyHash).toBe(sha(validated));
    expect(calls[1]?.bodyHash).toBe(calls[0]?.bodyHash);
    expect(calls[2]?.bodyHash).not.toBe(calls[0]?.bodyHash);
    expect(calls.map((c) => c.seq)).toEqual([1, 2, 3]);
  });

  it("serves the ledger over HTTP and resets it", async () => {
    const emu = await emus.start({ keys: [{ key: "sk-secret-key-abcdef" }] });
    await post(emu, "marketplace-search", { keyword: "mug" }, { key: "sk-secret-key-abcdef" });
    const res = await fetch(`${emu.url}/__emulator/ledger`);
    const text = await res.text();
    expect(text).not.toContain("sk-secret-key-abcdef");
    const ledger = JSON.parse(text);
    expect(ledger.totalCalls).toBe(1);
    expect(ledger.totalCredits).toBe(1);
    expect(ledger.calls[0]).toMatchObject({
      seq: 1,
      slug: "marketplace-search",
      credits: 1,
      status: "ok",
      httpStatus: 200,
    });
    expect((await fetch(`${emu.url}/__emulator/reset`, { method: "POST" })).status).toBe(200);
    expect(emu.ledger()).toMatchObject({ totalCalls: 0, totalCredits: 0, calls: [] });
  });

  it("keeps only the latest calls in the list but exact totals", async () => {
    const emu = await emus.start({ ledgerLimit: 3 });
    for (let i = 0; i < 10; i++) await post(emu, "marketplace-search", { keyword: `k${i}` });
    const ledger = emu.ledger();
    expect(ledger.totalCalls).toBe(10);
    expect(ledger.totalCredits).toBe(10);
    expect(ledger.calls.map((c) => c.seq)).toEqual([8, 9, 10]);
    expect(ledger.droppedCalls).toBe(7);
  });
});
