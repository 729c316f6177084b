import { describe, expect, it } from "vitest";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import {
  openTracked,
  runsOf,
  startTracked,
  tempDir,
  ticksOf,
  until,
  writeScheduledPipeline,
} from "./fixtures.js";

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`two schedulers on one ${kind} warehouse`, () => {
    it("run each tick once: one claims it, the other sees it taken", async () => {
      const { emulator, client } = await emulatorWithClient();
      const url = freshWarehouseUrl(kind);
      // Two schedulers as on two machines: their own connections, hosts and pids.
      const wa = await openTracked(url);
      const wb = await openTracked(url);
      const file = writeScheduledPipeline(tempDir());
      const a = await startTracked({
        warehouse: wa,
        client,
        files: [file],
        owner: { host: "node-a", pid: 101 },
      });
      const b = await startTracked({
        warehouse: wb,
        client,
        files: [file],
        owner: { host: "node-b", pid: 202 },
      });

      // Both saw at least three of the same ticks.
      const seen = (s: typeof a) => new Set(s.scheduler.ticks.map((t) => t.tickAt.getTime()));
      await until(
        async () => [...seen(a)].filter((t) => seen(b).has(t)).length >= 3,
        8000,
        "three ticks seen by both",
      );
      await Promise.all([a.scheduler.stop(5000), b.scheduler.stop(5000)]);

      const both = [...seen(a)].filter((t) => seen(b).has(t));
      for (const t of both) {
        const kinds = [a, b].map(
          (s) => s.scheduler.ticks.find((r) => r.tickAt.getTime() === t)!.outcome.kind,
        );
        // The claimer ran it (or skipped it while its previous run was still going); the other did nothing.
        expect(kinds.filter((k) => k === "taken")).toHaveLength(1);
      }
      const rows = await ticksOf(wa);
      expect(new Set(rows.map((r) => r.tick_at)).size).toBe(rows.length);
      const fired = rows.filter((r) => r.status === "fired");
      const ran = [a, b].flatMap((s) => s.scheduler.ticks.filter((r) => r.outcome.kind === "ran"));
      expect(ran).toHaveLength(fired.length);
      for (const r of fired) expect(["node-a", "node-b"]).toContain(r.host);
      // Each fired tick made one run and at most one paid call (a run the stop interrupted on a
      // busy machine may not have sent it); nothing ran twice.
      const runs = await runsOf(wa);
      expect(runs).toHaveLength(fired.length);
      const calls = emulator.ledger().totalCalls;
      expect(calls).toBeLessThanOrEqual(fired.length);
      expect(calls).toBeGreaterThanOrEqual(runs.filter((r) => r.status === "succeeded").length);
    });
  });
}
