import { afterEach, describe, expect, it } from "vitest";
import {
  AccessError,
  AuthError,
  PlatformError,
  RateLimitError,
  RequestError,
  ResponseShapeError,
  ServerError,
  SkillClient,
  TransportError,
} from "../../connectors/skill-api/index.js";
import { DEMO_KEY, type Emulator } from "../../emulator/index.js";
import { emulators } from "./helpers.js";

const emus = emulators();
const clients: SkillClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await emus.stopAll();
});

function client(emu: Emulator, apiKey = DEMO_KEY, extra: Record<string, number> = {}) {
  const c = new SkillClient({
    baseUrl: emu.url,
    apiKey,
    maxRetryDelayMs: 2000,
    retryBaseDelayMs: 10,
    ...extra,
  });
  clients.push(c);
  return c;
}

describe("the project's own client against the emulator", () => {
  it("runs a search, a patent batch and a whole report lifecycle", async () => {
    const emu = await emus.start({ reportPendingPolls: 1 });
    const c = client(emu);
    const page = await c.call("marketplace-search", { keyword: "desk lamp" });
    expect(page.data?.products?.length).toBe(20);
    const found = await c.call("websearch-patent-search", { q: "hinge", num: 10 });
    const pns = found.data?.results.map((r) => String(r["publicationNumber"])) ?? [];
    const claims = await c.call("patent-claims", { patentNumber: pns.join(",") });
    expect(claims.data?.total).toBe(pns.length);
    const created = await c.call("marketplace-ads-sp-audience-report", {
      connectionId: 4,
      startDate: "2025-01-01",
      endDate: "2025-01-02",
    });
    const reportId = created.data?.reportId ?? "";
    expect(
      (await c.call("marketplace-ads-sp-insights-report-status", { connectionId: 4, reportId })).data?.status,
    ).toBe("PENDING");
    const done = await c.call("marketplace-ads-sp-insights-report-status", { connectionId: 4, reportId });
    const token = done.data?.completedReportParts?.[0]?.documentToken ?? "";
    const csv = await c.call("marketplace-ads-sp-insights-report-download", {
      connectionId: 4,
      documentToken: token,
    });
    expect(csv.data?.content?.startsWith('"Date","Audience"')).toBe(true);
    expect(emu.ledger().calls.every((call) => call.status === "ok")).toBe(true);
  });

  it("gets the typed error for each refusal and fault", async () => {
    const emu = await emus.start({ keys: [{ key: "sk-client-test-0001", deny: ["ip-risk"], balance: 3 }] });
    const c = client(emu, "sk-client-test-0001", { maxRateLimitRetries: 0 });
    await expect(
      client(emu, "sk-unknown-key-0000").call("marketplace-search", { keyword: "a" }),
    ).rejects.toBeInstanceOf(AuthError);
    await expect(
      c.call("vendorb-gun-parts-search", { imageUrl: "https://i.example/a.jpg" }),
    ).rejects.toBeInstanceOf(AccessError);
    await expect(c.call("patent-claims", { patentNumber: "A1,B1,C1,D1" })).rejects.toBeInstanceOf(
      RequestError,
    );
    emu.setFaults({ platformErrorRate: 1 });
    await expect(c.call("marketplace-search", { keyword: "a" })).rejects.toBeInstanceOf(PlatformError);
    emu.setFaults({ platformErrorRate: 0, errorRate: 1 });
    await expect(c.call("marketplace-search", { keyword: "a" })).rejects.toBeInstanceOf(ServerError);
    emu.setFaults({ errorRate: 0, malformedRate: 1 });
    await expect(c.call("marketplace-search", { keyword: "a" })).rejects.toBeInstanceOf(ResponseShapeError);
    emu.setFaults({ malformedRate: 0, rateLimit: { perSecond: 0.01, burst: 1 } });
    await c.call("marketplace-search", { keyword: "b" });
    await expect(c.call("marketplace-search", { keyword: "c" })).rejects.toBeInstanceOf(RateLimitError);
    // Charged: the malformed answer and call b. Refusals and faults before processing cost nothing.
    expect(emu.ledger().totalCredits).toBe(2);
  });

  it("retries a 429 after Retry-After and pays once", async () => {
    const emu = await emus.start({ rateLimit: { perSecond: 1, burst: 1 } });
    const c = client(emu);
    await c.call("marketplace-search", { keyword: "first" });
    const second = await c.call("marketplace-search", { keyword: "second" });
    expect(second.attempts).toBeGreaterThan(1);
    const ledger = emu.ledger();
    expect(ledger.totalCredits).toBe(2);
    const paid = ledger.calls.filter((call) => call.credits > 0).map((call) => call.bodyHash);
    expect(new Set(paid).size).toBe(paid.length);
  });

  it("times out on a call the emulator never answers, which the ledger shows as charged", async () => {
    const emu = await emus.start({ timeoutRate: 1 });
    const c = client(emu, DEMO_KEY, { headersTimeoutMs: 200 });
    await expect(c.call("marketplace-search", { keyword: "slow" })).rejects.toBeInstanceOf(TransportError);
    expect(emu.ledger().calls).toMatchObject([{ status: "timeout", credits: 1 }]);
  });
});
