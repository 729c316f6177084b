import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunSummary, StartRun } from "../../engine/start/start-run.js";
import { zeroCounters } from "../../store/runs.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { openTracked, startTracked, tempDir, ticksOf, writeScheduledPipeline } from "./fixtures.js";

// Issue 32 §6, the acceptance line: `0 0 6 1,15 * 1` fires on the 1st, the 15th and every Monday —
// the scheduler itself (node-cron's timers under a fake clock), not only the next-times list.
const BOTH = "0 0 6 1,15 * 1";
const DAY = 24 * 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

describe("the scheduler under a fake clock", () => {
  it(`fires ${BOTH} on the 1st, the 15th and every Monday, once on a day that is both`, async () => {
    const { client } = await emulatorWithClient();
    const w = await openTracked(freshWarehouseUrl("sqlite"));
    // A Thursday. Ahead: Mondays, Tue Dec 1, Tue Dec 15, Fri Jan 1, Fri Jan 15, and Mon Feb 1 (both).
    vi.useFakeTimers({
      toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"],
      now: new Date("2026-11-26T12:00:00Z"),
    });
    // The tick's run is the seam `--workers` uses: what matters here is when the scheduler fires.
    const started: string[] = [];
    const run: StartRun = async () => {
      started.push(new Date().toISOString().slice(0, 16));
      const summary: RunSummary = {
        runId: `r${started.length}`,
        resumed: false,
        status: "succeeded",
        stopReason: undefined,
        authFailure: false,
        apiUnreachable: false,
        counters: zeroCounters(),
        failures: [],
        warnings: [],
        notes: [],
        tables: [],
        creditsEstimated: true,
        priceWarnings: [],
      };
      return { summary, outputs: { pushes: [], lines: [] } };
    };
    const file = writeScheduledPipeline(tempDir(), { cron: BOTH });
    const { scheduler } = await startTracked({ warehouse: w, client, files: [file], run });
    await vi.advanceTimersByTimeAsync(68 * DAY);
    vi.useRealTimers();
    const expected = [
      "2026-11-30", // Monday
      "2026-12-01", // the 1st (a Tuesday)
      "2026-12-07",
      "2026-12-14",
      "2026-12-15", // the 15th (a Tuesday)
      "2026-12-21",
      "2026-12-28",
      "2027-01-01", // the 1st (a Friday)
      "2027-01-04",
      "2027-01-11",
      "2027-01-15", // the 15th (a Friday)
      "2027-01-18",
      "2027-01-25",
      "2027-02-01", // a Monday and the 1st: once
    ].map((d) => `${d}T06:00`);
    expect(started).toEqual(expected);
    const ticks = scheduler.ticks.map((t) => [t.tickAt.toISOString().slice(0, 16), t.outcome.kind]);
    expect(ticks).toEqual(expected.map((d) => [d, "ran"]));
    const rows = await ticksOf(w);
    expect(rows.map((r) => String(r.status))).toEqual(expected.map(() => "fired"));
  }, 60_000);
});
