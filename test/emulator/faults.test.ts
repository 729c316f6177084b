import { afterEach, describe, expect, it } from "vitest";
import type { FaultSettings } from "../../emulator/index.js";
import { getOperation } from "../../schema/catalog.js";
import { envelopeSchema } from "../../schema/envelope.js";
import { emulators, post } from "./helpers.js";

const emus = emulators();
afterEach(() => emus.stopAll());

const search = { keyword: "mug" };

describe("fault injection", () => {
  it("adds fixed latency and jitter", async () => {
    const emu = await emus.start({ latencyMs: 120 });
    let t = performance.now();
    await post(emu, "marketplace-search", search);
    expect(performance.now() - t).toBeGreaterThanOrEqual(110);
    emu.setFaults({ latencyMs: 0, jitterMs: 80 });
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      t = performance.now();
      await post(emu, "marketplace-search", search);
      waits.push(performance.now() - t);
    }
    expect(Math.max(...waits)).toBeLessThan(400);
    expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(5);
  });

  it("rate limits per key with a token bucket: 429 with Retry-After, not charged", async () => {
    const emu = await emus.start({
      rateLimit: { perSecond: 1, burst: 3 },
      keys: [{ key: "sk-first-key-0001" }, { key: "sk-other-key-0002" }],
    });
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await post(emu, "marketplace-search", search, { key: "sk-first-key-0001" });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited?.json).toMatchObject({ code: 429, data: null });
    // Another key has its own bucket.
    expect((await post(emu, "marketplace-search", search, { key: "sk-other-key-0002" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await post(emu, "marketplace-search", search, { key: "sk-first-key-0001" })).status).toBe(200);
    const ledger = emu.ledger();
    expect(ledger.totalCredits).toBe(5);
    expect(ledger.calls.filter((c) => c.status === "rate-limited")).toHaveLength(2);
  });

  it("answers 5xx for errorRate and errorSchedule, without charging", async () => {
    const emu = await emus.start({ errorRate: 1 });
    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const res = await post(emu, "marketplace-search", search);
      statuses.add(res.status);
      expect(res.json).toMatchObject({ data: null });
    }
    expect([...statuses].every((s) => [500, 502, 503].includes(s))).toBe(true);
    expect(emu.ledger().totalCredits).toBe(0);
    emu.setFaults({ errorRate: 0, errorSchedule: [2, { call: 4, status: 503 }] });
    emu.reset();
    const got = [];
    for (let i = 0; i < 5; i++) got.push((await post(emu, "marketplace-search", search)).status);
    expect(got).toEqual([200, 500, 200, 503, 200]);
    expect(emu.ledger()).toMatchObject({ totalCredits: 3, chargedCalls: 3 });
  });

  it("charges a timed-out call, never answers it, and stop() still closes promptly", async () => {
    const emu = await emus.start({ timeoutRate: 1 });
    const pending = post(emu, "marketplace-search", search, { signal: AbortSignal.timeout(300) });
    await expect(pending).rejects.toThrow();
    expect(emu.ledger().calls[0]).toMatchObject({ status: "timeout", credits: 1, httpStatus: null });
    const hanging = fetch(`${emu.url}/api/skill-api/v1/skills/marketplace-search/run`, {
      method: "POST",
      headers: { authorization: "Bearer sk-demo-skillsync-local-0000" },
      body: JSON.stringify(search),
    }).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 50));
    const t = performance.now();
    await emu.stop();
    expect(performance.now() - t).toBeLessThan(1000);
    expect(await hanging).toBeInstanceOf(Error);
  });

  it("charges malformed answers: truncated JSON, HTML, or JSON that is not the envelope", async () => {
    const emu = await emus.start({ malformedRate: 1 });
    const kinds = new Set<string>();
    for (let i = 0; i < 15; i++) {
      const res = await post(emu, "marketplace-search", { keyword: `m${i}` });
      expect(res.status).toBe(200);
      expect(envelopeSchema.safeParse(res.json).success).toBe(false);
      kinds.add(res.json === null ? (res.text.startsWith("<html") ? "html" : "truncated") : "not-envelope");
    }
    expect(kinds).toEqual(new Set(["html", "truncated", "not-envelope"]));
    expect(emu.ledger()).toMatchObject({ totalCredits: 15, chargedCalls: 15 });
  });

  it("answers platform errors as HTTP 200 with code != 0, not charged", async () => {
    const emu = await emus.start({ platformErrorRate: 1 });
    const res = await post(emu, "marketplace-search", search);
    expect(res.status).toBe(200);
    const env = envelopeSchema.parse(res.json);
    expect(env.code).not.toBe(0);
    expect(env.data).toBeNull();
    expect(emu.ledger().calls[0]).toMatchObject({ status: "platform-error", credits: 0 });
  });

  it("drifts successes: unknown members and nulls, still valid for the data schema", async () => {
    const emu = await emus.start({ driftRate: 1 });
    const res = await post(emu, "marketplace-search", search);
    const data = res.json.data;
    expect(data.schemaRevision).toEqual(expect.any(String));
    expect(data.products[0].driftScore).toEqual(expect.any(Number));
    const nulls = data.products.flatMap((p: Record<string, unknown>) =>
      Object.keys(p).filter((k) => p[k] === null),
    );
    expect(nulls.length).toBeGreaterThanOrEqual(data.products.length);
    expect(getOperation("marketplace-search")?.data.safeParse(data).success).toBe(true);
    expect(data.products.every((p: { asin: string }) => typeof p.asin === "string")).toBe(true);
    const patents = await post(emu, "websearch-patent-search", { q: "x" });
    expect(getOperation("websearch-patent-search")?.data.safeParse(patents.json.data).success).toBe(true);
    expect(emu.ledger().calls.map((c) => c.status)).toEqual(["drift", "drift"]);
  });

  it("draws random faults from the seed: the same seed fails the same calls", async () => {
    const run = async (seed: number) => {
      const emu = await emus.start({ seed, errorRate: 0.3, platformErrorRate: 0.2 });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await post(emu, "marketplace-search", { keyword: `k${i}` });
        out.push(res.status * 10 + (res.json?.code === 0 ? 0 : 1));
      }
      return out;
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(await run(43)).not.toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it("changes knobs at runtime over HTTP, and refuses bad ones", async () => {
    const emu = await emus.start();
    const set = await fetch(`${emu.url}/__emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ errorRate: 1 }),
    });
    expect(set.status).toBe(200);
    expect(((await set.json()) as FaultSettings).errorRate).toBe(1);
    expect((await post(emu, "marketplace-search", search)).status).toBeGreaterThanOrEqual(500);
    const bad = await fetch(`${emu.url}/__emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ errorRate: 3, bogus: 1 }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("errorRate");
    expect(() => emu.setFaults({ timeoutRate: -1 })).toThrow(/timeoutRate/);
    const now = (await (await fetch(`${emu.url}/__emulator/faults`)).json()) as FaultSettings;
    expect(now.errorRate).toBe(1);
  });
});
