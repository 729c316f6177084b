import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pLimit from "p-limit";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimitError, SkillClient } from "../../../connectors/skill-api/index.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { DEMO_KEY } from "../../../emulator/index.js";
import { warehouseRateStore } from "../../../engine/extract/rate-share.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { envelope, FakeServer } from "./fake-server.js";

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close().catch(() => {});
});

const keyword = (i: number) => ({ keyword: `rate ${i}` });

/** `n` calls, `c` at a time; resolves to how many failed. */
async function calls(client: SkillClient, n: number, c: number): Promise<number> {
  const limit = pLimit(c);
  const r = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => limit(() => client.call("marketplace-search", keyword(i)))),
  );
  return r.filter((x) => x.status === "rejected").length;
}

describe("rate limits: a 429 slows the account down instead of failing calls", () => {
  it("under a limit it is not told of: every call succeeds, the pace is learnt, few requests are refused", async () => {
    const { client } = await emulatorWithClient({ rateLimit: { perSecond: 10 } });
    // 16 in flight against 10/s with a burst of 10: without pacing, most requests would be refused.
    expect(await calls(client, 40, 16)).toBe(0);
    const { refusals, pace } = client.rateLimit;
    expect(pace).not.toBeNull();
    expect(pace!).toBeLessThan(16);
    // The first round's calls in flight, and a probe now and then: far fewer than one per call.
    expect(refusals).toBeGreaterThan(0);
    expect(refusals).toBeLessThan(30);
  });

  it("a declared limit (--rate) paces calls before they are sent: none refused", async () => {
    const { client } = await emulatorWithClient({ rateLimit: { perSecond: 5 } }, { rate: 5 });
    const started = Date.now();
    expect(await calls(client, 10, 8)).toBe(0);
    expect(client.rateLimit.refusals).toBe(0);
    // 10 calls 200 ms apart.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1700);
  });

  it("gives up only when no call has succeeded for the timeout, saying which setting to change", async () => {
    const server = await FakeServer.start();
    opened.push(server);
    server.script({ status: 429, headers: { "retry-after": "0" } });
    const client = new SkillClient({
      baseUrl: server.baseUrl,
      apiKey: "sk-rate-test-1",
      rateLimitTimeoutMs: 400,
    });
    opened.push(client);
    const err = await client.call("marketplace-search", keyword(1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as Error).message).toContain("--rate-limit-timeout");
    // It asked again (at the slowest pace, with nothing succeeding) before giving up.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });

  it("counts the timeout from the refused call's first try when the client was idle since its last success", async () => {
    const server = await FakeServer.start();
    opened.push(server);
    const client = new SkillClient({
      baseUrl: server.baseUrl,
      apiKey: "sk-rate-test-3",
      rateLimitTimeoutMs: 300,
    });
    opened.push(client);
    server.script({ body: envelope({ products: [] }) });
    await client.call("marketplace-search", keyword(1));
    // Idle for longer than the timeout: the condition, not a wait for an event.
    await new Promise((r) => setTimeout(r, 500));
    server.script({ status: 429, headers: { "retry-after": "0" } }, { body: envelope({ products: [] }) });
    const r = await client.call("marketplace-search", keyword(2));
    expect(r.attempts).toBe(2);
    expect(client.rateLimit.refusals).toBe(1);
  });

  it("sends as many calls at once as asked: 64 in flight, not a pool's 32", async () => {
    // A server that answers nothing until 64 requests are open at once, then answers them all.
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        held.push(res);
        if (held.length === 64)
          for (const r of held.splice(0)) r.writeHead(200).end(JSON.stringify(envelope({ products: [] })));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    opened.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    const client = new SkillClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: "sk-rate-test-2",
      headersTimeoutMs: 60_000,
    });
    opened.push(client);
    expect(await calls(client, 64, 64)).toBe(0);
  });
});

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`one account's pace shared through the warehouse (${kind})`, () => {
    it("a pace one process learnt is the pace another sends at", async () => {
      const { emulator } = await emulatorWithClient({ rateLimit: { perSecond: 10 } });
      const url = freshWarehouseUrl(kind);
      const clients: SkillClient[] = [];
      for (let i = 0; i < 2; i++) {
        // Two warehouse handles and two clients: what two processes on one warehouse have.
        const w: Warehouse = await openWarehouse(url);
        opened.push(w);
        await migrateToLatest(w);
        const c = new SkillClient({ baseUrl: emulator.url, apiKey: DEMO_KEY });
        opened.push(c);
        c.shareRateLimit((account, declared) => warehouseRateStore(w, account, declared));
        clients.push(c);
      }
      const [a, b] = clients as [SkillClient, SkillClient];
      expect(await calls(a, 20, 16)).toBe(0);
      expect(a.rateLimit.refusals).toBeGreaterThan(0);
      // B never met a 429 itself, yet its first call already goes at the account's pace (alone,
      // it would go unpaced: null).
      expect(await calls(b, 1, 1)).toBe(0);
      expect(b.rateLimit.refusals).toBe(0);
      expect(b.rateLimit.pace).not.toBeNull();
    });
  });
}
