import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { runPipelines } from "../../engine/run/runner.js";
import { loadSchedules } from "../../scheduler/load.js";
import { interruptLeftovers } from "../../scheduler/shutdown.js";
import { insertCall } from "../../store/calls.js";
import { migrateToLatest } from "../../store/migrate.js";
import { startRun } from "../../store/runs.js";
import { acquireSlot, claimTick, ensureStates, readState } from "../../store/schedule-state.js";
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

async function nothingHalfRecorded(w: Warehouse) {
  const running = await w.db
    .selectFrom("skillsync_runs")
    .select("id")
    .where("status", "=", "running")
    .execute();
  const reserved = await w.db
    .selectFrom("skillsync_calls")
    .select("id")
    .where("outcome", "=", "reserved")
    .execute();
  const state = await readState(w, "sched-search");
  expect(running).toEqual([]);
  expect(reserved).toEqual([]);
  expect(state?.runningTickAt).toBeNull();
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`graceful stop on ${kind}`, () => {
    it("stops dispatching, lets the call in flight finish and records it; no run is left running", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 700 });
      const w = await openTracked(freshWarehouseUrl(kind));
      const file = writeScheduledPipeline(tempDir(), {
        params: "{ keyword: [usb hub, desk lamp, cable] }",
        schedule: "  concurrency: 1",
      });
      const { scheduler } = await startTracked({ warehouse: w, client, files: [file] });
      await until(
        async () => (await w.db.selectFrom("skillsync_calls").select("id").execute()).length > 0,
        5000,
        "a call in flight",
      );

      const summary = await scheduler.stop(5000);
      expect(summary.inFlight).toBe(1);
      expect(summary.forced).toEqual([]);
      await nothingHalfRecorded(w);
      const [run] = await runsOf(w);
      expect(run?.status).toBe("interrupted");
      // One call at a time: the one in flight finished and was recorded, the others were never sent.
      const calls = await w.db.selectFrom("skillsync_calls").selectAll().execute();
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.length).toBeLessThan(3);
      expect(run?.calls_planned).toBe(3);
      expect(calls.every((c) => c.outcome === "succeeded")).toBe(true);
      expect(emulator.ledger().totalCalls).toBe(calls.length);
      const ticks = await ticksOf(w);
      const tick = ticks.find((t) => t.status === "fired");
      expect(tick?.run_status).toBe("interrupted");
      expect(tick?.finished_at).not.toBeNull();
      // Ticks after the stop do nothing.
      await new Promise((r) => setTimeout(r, 1100));
      expect(await ticksOf(w)).toHaveLength(ticks.length);
    });

    it("cuts calls still in flight when the grace period ends, and still records the run as interrupted", async () => {
      const { client } = await emulatorWithClient({ latencyMs: 4000 });
      const w = await openTracked(freshWarehouseUrl(kind));
      const file = writeScheduledPipeline(tempDir());
      const { scheduler } = await startTracked({ warehouse: w, client, files: [file] });
      await until(
        async () => (await w.db.selectFrom("skillsync_calls").select("id").execute()).length > 0,
        5000,
        "a call in flight",
      );

      const t = performance.now();
      const summary = await scheduler.stop(300);
      expect(performance.now() - t).toBeLessThan(3000);
      expect(summary.forced).toEqual([]);
      await nothingHalfRecorded(w);
      const [run] = await runsOf(w);
      expect(run?.status).toBe("interrupted");
      const [call] = await w.db.selectFrom("skillsync_calls").selectAll().execute();
      // Sent but never answered: it may have been billed, so it says so.
      expect(call?.outcome).toBe("ambiguous");
    });

    it("sends nothing when the stop came while the run was still preparing its tables", async () => {
      const { emulator, client } = await emulatorWithClient();
      const w = await openTracked(freshWarehouseUrl(kind));
      const [sp] = loadSchedules([writeScheduledPipeline(tempDir())]);
      const stop = new AbortController();
      stop.abort();
      const summary = await runPipelines({
        warehouse: w,
        client,
        pipelines: [sp!.pipeline],
        params: { keyword: ["usb hub"] },
        trigger: "schedule",
        signal: stop.signal,
      });
      expect(summary.status).toBe("interrupted");
      expect(emulator.ledger().totalCalls).toBe(0);
      expect(await w.db.selectFrom("skillsync_calls").select("id").execute()).toEqual([]);
    });

    it("marks a run that never ended interrupted, with its reserved calls, and frees the slot", async () => {
      const w = await openTracked(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      const me = { host: hostname(), pid: process.pid };
      await ensureStates(w, ["sched-search"]);
      const tickAt = new Date(Math.floor(Date.now() / 1000) * 1000);
      expect(await claimTick(w, { pipeline: "sched-search", tickAt, status: "fired", owner: me })).toBe(true);
      expect(await claimTick(w, { pipeline: "sched-search", tickAt, status: "fired", owner: me })).toBe(
        false,
      );
      expect((await acquireSlot(w, "sched-search", tickAt, me)).ok).toBe(true);
      expect((await acquireSlot(w, "sched-search", new Date(tickAt.getTime() + 1000), me)).ok).toBe(false);
      const { id } = await startRun(w, {
        key: "k",
        pipelines: ["sched-search"],
        params: {},
        trigger: "schedule",
      });
      await w.db.transaction().execute((trx) =>
        insertCall(
          trx,
          {
            runId: id,
            pipeline: "sched-search",
            skill: "marketplace-search",
            requestHash: "h",
            credits: 1,
          },
          "reserved",
        ),
      );

      expect(
        await interruptLeftovers(w, me, [
          { pipeline: "sched-search", key: "sched-search", tickAt, maxFailures: 3 },
        ]),
      ).toEqual([id]);
      await nothingHalfRecorded(w);
      const [run] = await runsOf(w);
      expect(run?.status).toBe("interrupted");
      expect(String(run?.stop_reason)).toMatch(/grace period/);
      const [tick] = await ticksOf(w);
      expect(tick?.run_id).toBe(id);
      expect(tick?.run_status).toBe("interrupted");
      expect((await readState(w, "sched-search"))?.consecutiveFailures).toBe(0);
    });
  });
}
