import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { registerSecret } from "../../../core/redact.js";
import { DEFAULT_BACKOFF, deliverDue } from "../../../engine/notify/deliver.js";
import { deliverWithin, startDelivery } from "../../../engine/notify/loop.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { writeEvent } from "../../../store/outbox.js";
import { outboxRows } from "../../../store/outbox-claim.js";
import { startReceiver } from "../../helpers/notify-receiver.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

const warehouses: Warehouse[] = [];
const loops: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const l of loops.splice(0)) await l.stop();
  for (const w of warehouses.splice(0)) await w.close();
});

async function open(url: string): Promise<Warehouse> {
  const w = await openWarehouse(url);
  warehouses.push(w);
  await migrateToLatest(w);
  return w;
}

/** `n` failed-run events over three runs, numbered in the order they were written. */
async function events(w: Warehouse, targets: Parameters<typeof writeEvent>[1], n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await writeEvent(w.db, targets, {
      kind: "run.failed",
      runId: `r${i % 3}`,
      payload: { runId: `r${i % 3}`, n: i },
    });
}

/** Per run, the `n` of its events in the order the receiver got them. */
const orderPerRun = (got: { body: { event: Record<string, unknown> } }[]) =>
  got.reduce((m, r) => {
    const run = String(r.body.event["runId"]);
    return m.set(run, [...(m.get(run) ?? []), Number(r.body.event["n"])]);
  }, new Map<string, number[]>());

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`delivering notifications (${kind})`, () => {
    it("a receiver down for a while gets every event once it is back, once each, in order per run", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver();
      await hook.down();
      await events(w, [hook.target()], 6);
      loops.push(startDelivery(w, [hook.target()], { everyMs: 100, backoff: { baseMs: 100, capMs: 400 } }));
      // The first event of each run is retried; the later ones wait behind it (order per run).
      const tried = async () => (await outboxRows(w)).map((r) => Number(r["attempts"]));
      await until(async () => (await tried()).slice(0, 3).every((n) => n >= 3), 20_000, "3 failed tries");
      expect((await tried()).slice(3)).toEqual([0, 0, 0]);
      expect(hook.received).toEqual([]);
      const row = (await outboxRows(w))[0]!;
      expect(row["last_error"]).toBe("ECONNREFUSED");
      await hook.up();
      await until(async () => hook.received.length === 6, 10_000, "all 6 delivered");
      // Every event recorded delivered: a further pass has nothing to send.
      await until(
        async () => (await outboxRows(w)).every((r) => r["delivered_at"] !== null),
        10_000,
        "all recorded",
      );
      expect(await deliverDue(w, [hook.target()])).toEqual({ delivered: 0, failed: 0 });
      expect([...hook.counts().values()]).toEqual([1, 1, 1, 1, 1, 1]);
      for (const ns of orderPerRun(hook.received).values()) expect(ns).toEqual([...ns].sort((a, b) => a - b));
    }, 60_000);

    it("with the default backoff, 60 s of a refused receiver are retried and it gets the event within 30 s of its return (moved clock)", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver("500");
      await events(w, [hook.target()], 1);
      const t0 = Date.now() + 1000;
      let at = t0;
      const now = () => new Date(at);
      for (; at < t0 + 60_000; at += 1000) await deliverDue(w, [hook.target()], { now });
      const tries = hook.state.posts;
      // Backing off: a few tries in a minute, not one a second.
      expect(tries).toBeGreaterThanOrEqual(4);
      expect(tries).toBeLessThanOrEqual(10);
      hook.state.mode = "ok";
      for (; hook.received.length === 0 && at < t0 + 120_000; at += 1000)
        await deliverDue(w, [hook.target()], { now });
      expect(hook.received).toHaveLength(1);
      expect(at - (t0 + 60_000)).toBeLessThanOrEqual(DEFAULT_BACKOFF.capMs + 1000);
    }, 60_000);

    it("a receiver that never answers holds the end of a run 1 s at most; the event stays for the next deliverer", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver("hang");
      await events(w, [hook.target()], 2);
      const t = performance.now();
      await deliverWithin(w, [hook.target()]);
      const took = performance.now() - t;
      expect(took).toBeLessThanOrEqual(1100);
      expect(hook.state.posts).toBeGreaterThanOrEqual(1);
      const rows = await outboxRows(w);
      expect(rows.every((r) => r["delivered_at"] === null)).toBe(true);
      expect(rows.some((r) => r["last_error"] === "timed out")).toBe(true);
      // Back to answering: the next deliverer (another run's end) delivers them.
      hook.state.mode = "ok";
      const later = { now: () => new Date(Date.now() + 5000) };
      await deliverDue(w, [hook.target()], later);
      await deliverDue(w, [hook.target()], later);
      expect(hook.received).toHaveLength(2);
    }, 30_000);

    it("a deliverer stopped during a POST lets it finish: sent once; the events it had not sent are due at once", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver("slow");
      await events(w, [hook.target()], 3);
      const loop = startDelivery(w, [hook.target()], { everyMs: 100 });
      loops.push(loop);
      await until(async () => hook.state.posts === 1, 10_000, "the first POST under way");
      await loop.stop();
      const rows = await outboxRows(w);
      expect(rows.map((r) => r["delivered_at"] !== null)).toEqual([true, false, false]);
      expect(rows.slice(1).every((r) => new Date(String(r["next_attempt_at"])).getTime() <= Date.now())).toBe(
        true,
      );
      hook.state.mode = "ok";
      await deliverDue(w, [hook.target()]);
      expect(hook.received).toHaveLength(3);
      expect([...hook.counts().values()]).toEqual([1, 1, 1]);
    }, 30_000);

    it("a deliverer stopped while its receiver hangs waits its drain time, then cuts the POST", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver("hang");
      await events(w, [hook.target()], 1);
      const loop = startDelivery(w, [hook.target()], { everyMs: 100, drainMs: 300 });
      loops.push(loop);
      await until(async () => hook.state.posts === 1, 10_000, "the POST under way");
      const t = performance.now();
      await loop.stop();
      expect(performance.now() - t).toBeLessThan(3000);
      expect((await outboxRows(w))[0]!["delivered_at"]).toBeNull();
    }, 30_000);

    it("two deliverers on one outbox deliver each event once", async () => {
      const url = freshWarehouseUrl(kind);
      const a = await open(url);
      const b = await open(url);
      const hook = await startReceiver();
      await events(a, [hook.target()], 30);
      loops.push(
        startDelivery(a, [hook.target()], { everyMs: 50 }),
        startDelivery(b, [hook.target()], { everyMs: 50 }),
      );
      await until(async () => hook.received.length >= 30, 20_000, "30 delivered");
      // Both deliverers stopped (each lets its POST under way finish): nothing more can arrive.
      for (const l of loops.splice(0)) await l.stop();
      expect(hook.received).toHaveLength(30);
      expect([...hook.counts().values()].every((n) => n === 1)).toBe(true);
      for (const ns of orderPerRun(hook.received).values()) expect(ns).toEqual([...ns].sort((x, y) => x - y));
    }, 60_000);

    it("no API key, server secret or webhook URL in any payload or outbox row", async () => {
      const w = await open(freshWarehouseUrl(kind));
      const hook = await startReceiver();
      const key = "sk-live-notify-scan-0123456789";
      const server = "server-secret-notify-scan-0123456789";
      registerSecret(key);
      registerSecret(server);
      const target = hook.target();
      await writeEvent(w.db, [target], {
        kind: "run.failed",
        runId: "r1",
        payload: { error: `refused ${key} (secret ${server}) posting to ${hook.url}`, runId: "r1" },
      });
      await deliverDue(w, [target]);
      expect(hook.received).toHaveLength(1);
      const token = "secret-hook-token-0123456789";
      const stored = JSON.stringify(await outboxRows(w));
      for (const text of [hook.received[0]!.raw, stored]) {
        for (const secret of [key, server, hook.url, token]) expect(text).not.toContain(secret);
      }
    });
  });
}
