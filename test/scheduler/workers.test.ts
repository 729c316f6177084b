import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { cliProcess, until, workerProcess } from "../engine/distribute/processes.js";
import { rows } from "../engine/fixtures.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";
import { tempDir, writeScheduledPipeline } from "./fixtures.js";

describe.skipIf(unavailable("postgres"))("schedule --workers", () => {
  it("two scheduler processes on one warehouse: each tick is queued and run once, by the workers, its history kept", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 50 });
    const db = freshWarehouseUrl("postgres");
    const file = writeScheduledPipeline(tempDir(), { cron: "*/2 * * * * *" });
    const worker = await workerProcess(db, emulator.url, ["--concurrency", "2"]);
    const schedulers = [0, 1].map(() =>
      cliProcess(["schedule", file, "--db", db, "--workers"], emulator.url),
    );
    await Promise.all(schedulers.map((s) => s.waitFor("running; stop with SIGTERM")));
    const w = await openWarehouse(db);
    try {
      const finished = () =>
        rows<{ n: number }>(
          w,
          "select count(*) as n from skillsync_schedule_ticks where run_status = 'succeeded'",
        );
      await until(async () => Number((await finished())[0]!.n) >= 3, 30_000);
      for (const s of schedulers) s.child.kill("SIGTERM");
      for (const s of schedulers) expect((await s.exited).code, s.output()).toBe(0);

      const ticks = await rows<{ tick_at: string; run_id: string | null; run_status: string | null }>(
        w,
        "select tick_at, run_id, run_status from skillsync_schedule_ticks where status = 'fired' order by tick_at",
      );
      const ran = ticks.filter((t) => t.run_status !== null);
      expect(ran.filter((t) => t.run_status === "succeeded").length).toBeGreaterThanOrEqual(3);
      expect(new Set(ticks.map((t) => t.tick_at)).size).toBe(ticks.length);
      // A tick going when the schedulers stopped is recorded interrupted.
      for (const t of ran) expect(["succeeded", "interrupted"]).toContain(t.run_status);
      // One run per tick, each a scheduled one whose call a worker made.
      const runs = await rows<{ id: string }>(w, "select id from skillsync_runs where trigger = 'schedule'");
      expect(runs.map((r) => r.id).sort()).toEqual(ran.map((t) => t.run_id).sort());
      const paid = emulator.ledger().calls.filter((c) => c.credits > 0).length;
      const succeeded = ran.filter((t) => t.run_status === "succeeded");
      expect(paid).toBeGreaterThanOrEqual(succeeded.length);
      expect(paid).toBeLessThanOrEqual(runs.length);
      for (const r of succeeded) expect(worker.output()).toContain(`of run ${r.run_id}`);
    } finally {
      await w.close();
    }
  }, 90_000);
});
