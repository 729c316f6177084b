import { describe, expect, it } from "vitest";
import { resolveDate } from "../../engine/define/params.js";
import { startRun } from "../../engine/start/start-run.js";
import { readState, resumeSchedule } from "../../store/schedule-state.js";
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
  describe.skipIf(unavailable(kind))(`scheduler on ${kind}`, () => {
    it("fires ticks and records each run with trigger schedule and the day's resolved dates", async () => {
      const { emulator, client } = await emulatorWithClient();
      const w = await openTracked(freshWarehouseUrl(kind));
      const file = writeScheduledPipeline(tempDir());
      const { scheduler } = await startTracked({ warehouse: w, client, files: [file] });

      const done = await until(
        async () => {
          const t = (await ticksOf(w)).filter((r) => r.run_status === "succeeded");
          return t.length >= 2 && t;
        },
        8000,
        "two succeeded ticks",
      );
      await scheduler.stop(5000);

      const runs = await runsOf(w);
      const ticks = await ticksOf(w);
      const fired = ticks.filter((t) => t.status === "fired");
      expect(done.length).toBeGreaterThanOrEqual(2);
      expect(runs.length).toBe(fired.length);
      expect(new Set(fired.map((t) => t.run_id))).toEqual(new Set(runs.map((r) => r.id)));
      for (const r of runs) {
        expect(r.trigger).toBe("schedule");
        expect(["succeeded", "interrupted"]).toContain(r.status);
        // `day: yesterday` reached the run as the date of the day before its tick (UTC schedule).
        const params = typeof r.params === "string" ? JSON.parse(r.params) : r.params;
        const tick = fired.find((t) => t.run_id === r.id)!;
        expect(params.day).toEqual([resolveDate("yesterday", new Date(String(tick.tick_at)))]);
      }
      // One call per run, each run really called the API (freshness 0).
      expect(emulator.ledger().totalCalls).toBe(runs.reduce((n, r) => n + Number(r.calls_done), 0));
      const state = await readState(w, "sched-search");
      expect(state?.runningTickAt).toBeNull();
      expect(state?.consecutiveFailures).toBe(0);
    });

    it("hands each finished run to afterRun (sheet outputs) and logs what it says", async () => {
      const { client } = await emulatorWithClient();
      const w = await openTracked(freshWarehouseUrl(kind));
      const seen: string[] = [];
      const { scheduler, lines } = await startTracked({
        warehouse: w,
        client,
        files: [writeScheduledPipeline(tempDir())],
        // What follows the run's load (its sheet outputs) is the use-case's: the lines it gives are logged.
        run: async (o) => {
          const { summary } = await startRun(o);
          seen.push(`${o.pipelines[0]?.name}:${summary.status}`);
          return { summary, outputs: { pushes: [], lines: [`pushed ${summary.runId}`] } };
        },
      });
      await until(async () => seen.length >= 1, 8000, "a run handed to afterRun");
      await scheduler.stop(5000);
      expect(seen[0]).toBe("sched-search:succeeded");
      expect(lines.some((l) => /pushed r\d{14}-/.test(l))).toBe(true);
    });

    it("skips a tick while the previous tick's run is still going, never running two at once", async () => {
      const { client } = await emulatorWithClient({ latencyMs: 1200 });
      const w = await openTracked(freshWarehouseUrl(kind));
      const file = writeScheduledPipeline(tempDir());
      const { scheduler, lines } = await startTracked({ warehouse: w, client, files: [file] });

      const skipped = await until(
        async () => (await ticksOf(w)).find((t) => t.status === "skipped"),
        8000,
        "a skipped tick",
      );
      await until(async () => (await runsOf(w)).length >= 2, 8000, "a second run");
      await scheduler.stop(5000);

      expect(String(skipped.note)).toMatch(/still going/);
      expect(lines.some((l) => l.includes("skipped: the run of tick"))).toBe(true);
      const runs = (await runsOf(w)).filter((r) => r.finished_at);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < runs.length; i++) {
        expect(Date.parse(String(runs[i]!.started_at))).toBeGreaterThanOrEqual(
          Date.parse(String(runs[i - 1]!.finished_at)),
        );
      }
    });

    it("pauses a schedule after maxFailures failed runs in a row; resume clears it and runs go on", async () => {
      const { emulator, client } = await emulatorWithClient({ errorRate: 1 });
      const w = await openTracked(freshWarehouseUrl(kind));
      const file = writeScheduledPipeline(tempDir(), { schedule: "  maxFailures: 2" });
      const { lines } = await startTracked({ warehouse: w, client, files: [file] });

      const paused = await until(async () => {
        const s = await readState(w, "sched-search");
        return s?.paused && s;
      }, 8000);
      expect(paused.consecutiveFailures).toBe(2);
      expect(paused.pausedReason).toMatch(/2 failed runs in a row/);
      // The state commits before the scheduler logs the pause: wait for the line, do not race it.
      await until(
        async () => lines.some((l) => l.includes("paused after 2 failed runs")),
        8000,
        "the pause line",
      );
      const failedRuns = (await runsOf(w)).filter((r) => r.status === "failed");
      expect(failedRuns.length).toBeGreaterThanOrEqual(1);
      expect(String(failedRuns[0]!.error)).not.toBe("");

      // While paused, ticks are recorded as skipped and nothing reaches the API.
      const callsAtPause = emulator.ledger().totalCalls;
      await until(
        async () => (await ticksOf(w)).find((t) => t.status === "skipped" && /paused/.test(String(t.note))),
        4000,
        "a tick skipped while paused",
      );
      expect(emulator.ledger().totalCalls).toBe(callsAtPause);

      emulator.setFaults({ errorRate: 0 });
      expect(await resumeSchedule(w, "sched-search")).toBe(true);
      const resumed = await readState(w, "sched-search");
      expect(resumed?.paused).toBe(false);
      expect(resumed?.consecutiveFailures).toBe(0);
      await until(
        async () => (await ticksOf(w)).find((t) => t.run_status === "succeeded"),
        6000,
        "a succeeded run after resume",
      );
      expect((await readState(w, "sched-search"))?.paused).toBe(false);
      expect(await resumeSchedule(w, "no-such-pipeline")).toBe(false);
    });

    it("reports ticks missed while no scheduler ran, and catches the latest up once with catchUp", async () => {
      const { client } = await emulatorWithClient();
      const w = await openTracked(freshWarehouseUrl(kind));
      const dir = tempDir();
      // A daily tick 10 seconds ago: inside the downtime below, and the next one is a day away.
      const past = new Date(Date.now() - 10_000);
      const daily = `${past.getUTCSeconds()} ${past.getUTCMinutes()} ${past.getUTCHours()} * * *`;
      const lazy = writeScheduledPipeline(dir, { name: "lazy", cron: daily });
      const eager = writeScheduledPipeline(dir, { name: "eager", cron: daily, schedule: "  catchUp: true" });
      // A first scheduler creates the state rows, then "goes down" for 20 seconds.
      const first = await startTracked({ warehouse: w, client, files: [lazy, eager] });
      await first.scheduler.stop(0);
      const downSince = new Date(Date.now() - 20_000).toISOString();
      await w.db.updateTable("skillsync_schedule_state").set({ checked_at: downSince }).execute();

      const { scheduler, lines } = await startTracked({ warehouse: w, client, files: [lazy, eager] });
      const caught = await until(
        async () => (await ticksOf(w, "eager")).find((t) => t.status === "caught-up" && t.run_status),
        6000,
        "the caught-up run",
      );
      await scheduler.stop(5000);

      expect(lines.some((l) => /^lazy: 1 tick\(s\) missed .*not caught up/.test(l))).toBe(true);
      expect(lines.some((l) => /^eager: 1 tick\(s\) missed .*catching up the latest once/.test(l))).toBe(
        true,
      );
      const lazyMissed = (await ticksOf(w, "lazy")).filter((t) => t.status === "missed");
      expect(lazyMissed).toHaveLength(1);
      expect(lazyMissed[0]!.run_id).toBeNull();
      expect(Date.parse(String(lazyMissed[0]!.tick_at))).toBe(Math.floor(past.getTime() / 1000) * 1000);
      expect(caught.run_status).toBe("succeeded");
      expect((await ticksOf(w, "eager")).filter((t) => t.status === "caught-up")).toHaveLength(1);
    });
  });
}
