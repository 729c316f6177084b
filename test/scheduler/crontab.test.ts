import { afterEach, describe, expect, it, vi } from "vitest";
import { crontabParts } from "../../schema/crontab.js";
import { nextTimes, pastTicks } from "../../schema/schedule-times.js";
import { cli } from "../helpers/cli.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { openTracked, startTracked, tempDir, ticksOf, until, writeScheduledPipeline } from "./fixtures.js";

// Issue 32 §6: with day-of-month and day-of-week both restricted, crontab fires when EITHER
// matches; node-cron alone wants both.
const BOTH = "0 0 6 1,15 * 1";
const iso = (d: Date) => d.toISOString().slice(0, 16);

afterEach(() => {
  vi.useRealTimers();
});

describe("cron as crontab means it", () => {
  it("splits an expression with both day fields restricted into its two halves", () => {
    expect(crontabParts(BOTH)).toEqual(["0 0 6 1,15 * *", "0 0 6 * * 1"]);
    expect(crontabParts("30 2 1 * mon-fri")).toEqual(["30 2 1 * *", "30 2 * * mon-fri"]);
    // One day field unrestricted (a star, also */n as in Vixie cron): node-cron's meaning is crontab's.
    for (const expr of ["0 6 * * 1", "0 6 1,15 * *", "0 6 */2 * 1", "* * * * * *"])
      expect(crontabParts(expr)).toEqual([expr]);
  });

  it(`${BOTH} fires on the 1st, the 15th and every Monday (fake clock), once on a day that is both`, () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2027-01-25T07:00:00Z") });
    // 2027-02-01 and 2027-03-01 are Mondays and 1sts, 2027-02-15 a Monday and a 15th.
    expect(nextTimes(BOTH, "UTC", 6).map(iso)).toEqual([
      "2027-02-01T06:00",
      "2027-02-08T06:00",
      "2027-02-15T06:00",
      "2027-02-22T06:00",
      "2027-03-01T06:00",
      "2027-03-08T06:00",
    ]);
    vi.setSystemTime(new Date("2026-11-26T12:00:00Z"));
    // A Thursday: the coming Monday (Nov 30), the 1st (a Tuesday), then Mondays and the 15th.
    expect(nextTimes(BOTH, "UTC", 5).map(iso)).toEqual([
      "2026-11-30T06:00",
      "2026-12-01T06:00",
      "2026-12-07T06:00",
      "2026-12-14T06:00",
      "2026-12-15T06:00",
    ]);
  });

  it("counts missed ticks with the same meaning", () => {
    const got = pastTicks(BOTH, "UTC", new Date("2027-01-31T00:00:00Z"), new Date("2027-03-02T00:00:00Z"));
    expect({ count: got.count, latest: got.latest && iso(got.latest) }).toEqual({
      count: 5,
      latest: "2027-03-01T06:00",
    });
  });

  it("schedule --list shows those next fire times", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-26T12:00:00Z") });
    const file = writeScheduledPipeline(tempDir(), { cron: BOTH });
    const r = await cli(["schedule", file, "--list", "--next", "3", "--db", freshWarehouseUrl("sqlite")]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("2026-11-30 06:00:00, 2026-12-01 06:00:00, 2026-12-07 06:00:00");
  });

  it("a tick of both halves at the same instant runs once", async () => {
    // Every second, on a day-of-month and a day-of-week that are both today's: both node-cron
    // tasks fire each second, and each second is one tick.
    const now = new Date();
    const cron = `* * * ${now.getUTCDate()} * ${now.getUTCDay()}`;
    const { client } = await emulatorWithClient();
    const w = await openTracked(freshWarehouseUrl("sqlite"));
    const { scheduler } = await startTracked({
      warehouse: w,
      client,
      files: [writeScheduledPipeline(tempDir(), { cron, schedule: "  timezone: UTC\n" })],
    });
    await until(async () => (await ticksOf(w)).length >= 3, 30_000, "three ticks");
    await scheduler.stop(10_000);
    // Launched twice, a tick's second claim would come back `taken`: each instant is launched once.
    const at = scheduler.ticks.map((t) => t.tickAt.getTime());
    expect(at.length).toBeGreaterThanOrEqual(3);
    expect(new Set(at).size).toBe(at.length);
    expect(scheduler.ticks.filter((t) => t.outcome.kind === "taken")).toEqual([]);
  }, 60_000);
});
