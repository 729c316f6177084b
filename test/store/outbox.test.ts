import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { registerSecret } from "../../core/redact.js";
import { migrateToLatest } from "../../store/migrate.js";
import { eventIdOf, targetHash, writeEvent } from "../../store/outbox.js";
import { claimDue, markDelivered, outboxRows } from "../../store/outbox-claim.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const warehouses: Warehouse[] = [];
afterEach(async () => {
  for (const w of warehouses.splice(0)) await w.close();
});

async function fresh(kind: (typeof WAREHOUSE_KINDS)[number]): Promise<Warehouse> {
  const w = await openWarehouse(freshWarehouseUrl(kind));
  warehouses.push(w);
  await migrateToLatest(w);
  return w;
}

/** A pid that ran and ended: its process is gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

const A = { hash: targetHash("https://a.example/hook/aaaa") };
const B = { hash: targetHash("https://b.example/hook/bbbb"), on: ["budget" as const] };

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`the notification outbox (${kind})`, () => {
    it("writes nothing without a target, one row per target that wants the kind, a fixed id once", async () => {
      const w = await fresh(kind);
      await writeEvent(w.db, [], { kind: "run.failed", runId: "r1", payload: {} });
      expect(await outboxRows(w)).toEqual([]);
      const id = eventIdOf("budget", "daily:2026-11-26", "100", "80");
      // Two processes deciding the same crossing at once: still one row per target.
      await Promise.all(
        [1, 2, 3].map(() => writeEvent(w.db, [A, B], { id, kind: "budget.80", payload: { threshold: 80 } })),
      );
      await writeEvent(w.db, [A, B], { kind: "run.failed", runId: "r1", payload: {} });
      const rows = await outboxRows(w);
      expect(rows.map((r) => [r["event_id"] === id, r["target"], r["kind"]])).toEqual([
        [true, A.hash, "budget.80"],
        [true, B.hash, "budget.80"],
        [false, A.hash, "run.failed"],
      ]);
      // The URL is never stored, only its hash.
      expect(JSON.stringify(rows)).not.toContain("example");
    });

    it("redacts secrets in the payload it stores", async () => {
      const w = await fresh(kind);
      registerSecret("sk-outbox-test-secret-42");
      await writeEvent(w.db, [A], {
        kind: "run.failed",
        payload: { error: "refused key sk-outbox-test-secret-42 at Bearer abcdefghijkl" },
      });
      const [row] = await outboxRows(w);
      expect(String(row!["payload"])).not.toContain("sk-outbox-test-secret-42");
      expect(String(row!["payload"])).not.toContain("abcdefghijkl");
    });

    it("claims a run's events in order, one at a time, and each claim once among racing deliverers", async () => {
      const w = await fresh(kind);
      for (const n of [1, 2, 3])
        await writeEvent(w.db, [A], { kind: "run.failed", runId: "r1", payload: { n } });
      await writeEvent(w.db, [A], { kind: "run.ceiling", runId: "r2", payload: { n: 9 } });
      const now = new Date(Date.now() + 1000);
      const claims = await Promise.all(
        [1, 2, 3, 4].map(() => claimDue(w, [A.hash], { now, leaseMs: 60_000, limit: 10 })),
      );
      const taken = claims.flat();
      // The first event of each run, each taken by exactly one of the racers.
      expect(taken.map((e) => e.payload["n"]).sort()).toEqual([1, 9]);
      // Leased: not due again before the lease ends, even though not delivered.
      expect(await claimDue(w, [A.hash], { now, leaseMs: 60_000, limit: 10 })).toEqual([]);
      const first = taken.find((e) => e.payload["n"] === 1)!;
      await markDelivered(w, first.seq, now);
      const next = await claimDue(w, [A.hash], { now, leaseMs: 60_000, limit: 10 });
      expect(next.map((e) => e.payload["n"])).toEqual([2]);
      // Another target's deliverer sees none of them.
      expect(await claimDue(w, [B.hash], { now, leaseMs: 60_000, limit: 10 })).toEqual([]);
    });

    it("names the claiming process; a gone process's claims on this host are due again at once, others wait the lease", async () => {
      const w = await fresh(kind);
      for (const run of ["gone", "alive", "elsewhere"])
        await writeEvent(w.db, [A], { kind: "run.failed", runId: run, payload: { run } });
      const now = new Date(Date.now() + 1000);
      const taken = await claimDue(w, [A.hash], { now, leaseMs: 60_000, limit: 10 });
      expect(taken).toHaveLength(3);
      const rows = await outboxRows(w);
      for (const r of rows)
        expect([r["claimed_host"], Number(r["claimed_pid"])]).toEqual([hostname(), process.pid]);
      // As if three other processes held them: one gone on this host, one alive, one on another host.
      const dead = await deadPid();
      const holders: Record<string, { claimed_host: string; claimed_pid: number }> = {
        gone: { claimed_host: hostname(), claimed_pid: dead },
        alive: { claimed_host: hostname(), claimed_pid: process.ppid },
        elsewhere: { claimed_host: `not-${hostname()}`, claimed_pid: dead },
      };
      for (const [run, holder] of Object.entries(holders))
        await w.db.updateTable("skillsync_outbox").set(holder).where("run_id", "=", run).execute();
      const again = await claimDue(w, [A.hash], { now, leaseMs: 60_000, limit: 10 });
      expect(again.map((e) => e.runId)).toEqual(["gone"]);
      expect(again[0]!.attempts).toBe(2);
      await markDelivered(w, again[0]!.seq, now);
      // After the lease, the others too.
      const later = new Date(now.getTime() + 61_000);
      const rest = await claimDue(w, [A.hash], { now: later, leaseMs: 60_000, limit: 10 });
      expect(rest.map((e) => e.runId).sort()).toEqual(["alive", "elsewhere"]);
    });
  });
}
