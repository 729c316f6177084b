import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadSchedules } from "../../scheduler/load.js";
import { paramsForTick } from "../../scheduler/tick.js";
import {
  COUNT_CAP,
  cronMatcher,
  formatInZone,
  LOOKBACK_MS,
  nextTimes,
  pastTicks,
  zonedToday,
} from "../../schema/schedule-times.js";
import { tempDir, writeScheduledPipeline } from "./fixtures.js";

const at = (iso: string) => new Date(iso);

describe("schedule times", () => {
  it("lists the next run times in the schedule's time zone", () => {
    const next = nextTimes("0 6 * * *", "Europe/Berlin", 3);
    expect(next).toHaveLength(3);
    for (const d of next) expect(formatInZone(d, "Europe/Berlin")).toMatch(/^\d{4}-\d{2}-\d{2} 06:00:00$/);
    expect(next[0]!.getTime()).toBeGreaterThan(Date.now());
    expect(next[1]!.getTime()).toBeGreaterThan(next[0]!.getTime());
    const seconds = nextTimes("*/15 * * * * *", "UTC", 4);
    expect(seconds.map((d) => d.getUTCSeconds() % 15)).toEqual([0, 0, 0, 0]);
    expect(seconds[3]!.getTime() - seconds[0]!.getTime()).toBe(45_000);
  });

  it("finds the ticks missed in a window, latest first, in the zone's wall clock", () => {
    expect(pastTicks("0 6 * * *", "UTC", at("2025-01-01T00:00:00Z"), at("2025-01-03T12:00:00Z"))).toEqual({
      latest: at("2025-01-03T06:00:00Z"),
      count: 3,
      more: false,
    });
    // 06:00 in Berlin is 05:00 UTC in winter and 04:00 UTC in summer.
    expect(
      pastTicks("0 6 * * *", "Europe/Berlin", at("2025-01-01T00:00Z"), at("2025-01-02T00:00Z")).latest,
    ).toEqual(at("2025-01-01T05:00:00Z"));
    expect(
      pastTicks("0 6 * * *", "Europe/Berlin", at("2025-07-01T00:00Z"), at("2025-07-02T00:00Z")).latest,
    ).toEqual(at("2025-07-01T04:00:00Z"));
    // The window is (after, before]: a tick exactly at `after` was already accounted for.
    const secs = pastTicks("*/20 * * * * *", "UTC", at("2025-01-01T00:00:00Z"), at("2025-01-01T00:01:00Z"));
    expect(secs).toEqual({ latest: at("2025-01-01T00:01:00Z"), count: 3, more: false });
    expect(pastTicks("0 6 * * *", "UTC", at("2025-01-03T06:00:00Z"), at("2025-01-03T12:00:00Z")).count).toBe(
      0,
    );
  });

  it("agrees with a brute-force walk of node-cron's match, across a DST change", () => {
    const from = at("2025-03-28T00:00:00Z");
    const to = at("2025-04-01T00:00:00Z");
    for (const [expr, zone] of [
      ["*/7 9-17 * * 1-5", "Europe/Berlin"],
      ["30 2 * * *", "Europe/Berlin"],
      ["0 0 L * *", "America/New_York"],
      ["15 */2 * * 0", "Asia/Kolkata"],
    ] as const) {
      const task = cronMatcher(expr, zone);
      const brute: number[] = [];
      for (let t = from.getTime() + 60_000; t <= to.getTime(); t += 60_000)
        if (task.match(new Date(t))) brute.push(t);
      void task.destroy();
      const got = pastTicks(expr, zone, from, to);
      expect({ expr, count: got.count, latest: got.latest?.getTime() }).toEqual({
        expr,
        count: brute.length,
        latest: brute[brute.length - 1],
      });
    }
  });

  it("looks back at most LOOKBACK_MS, counts at most COUNT_CAP, says so, and stays fast", () => {
    const before = at("2025-06-30T00:00:00Z");
    const daily = pastTicks("0 0 * * *", "UTC", at("2024-01-01T00:00:00Z"), before);
    expect(daily.more).toBe(true);
    expect(daily.count).toBe(LOOKBACK_MS / 86_400_000);
    const perSecond = pastTicks("* * * * * *", "UTC", at("2025-06-29T00:00:00Z"), before);
    expect(perSecond).toEqual({ latest: before, count: COUNT_CAP, more: true });
    const t = performance.now();
    for (const expr of ["0 0 1 1 *", "* * * * 1", "0 6 * * 1", "* 3 * * *"]) {
      pastTicks(expr, "Europe/Berlin", at("2024-01-01T00:00:00Z"), before);
    }
    expect(performance.now() - t).toBeLessThan(1500);
  });

  it("resolves relative dates for the tick's day in the schedule's zone", () => {
    // 23:30 UTC on Jan 3 is already Jan 4 in Tokyo.
    expect(zonedToday(at("2025-01-03T23:30:00Z"), "Asia/Tokyo")).toEqual(at("2025-01-04T00:00:00Z"));
    const file = writeScheduledPipeline(tempDir(), {
      params: "{ keyword: [a, b], day: yesterday }",
      schedule: "  timezone: Asia/Tokyo",
    });
    const [sp] = loadSchedules([file]);
    expect(paramsForTick(sp!, at("2025-01-03T23:30:00Z"))).toEqual({
      keyword: ["a", "b"],
      day: ["2025-01-03"],
    });
    expect(paramsForTick(sp!, at("2025-01-03T12:00:00Z"))).toEqual({
      keyword: ["a", "b"],
      day: ["2025-01-02"],
    });
    // A relative default of a date param resolves per tick too.
    const other = writeScheduledPipeline(tempDir(), { params: "{ keyword: a }" });
    writeFileSync(
      other,
      readFileSync(other, "utf8").replace("day: { type: date }", "day: { type: date, default: today-7 }"),
    );
    const [withDefault] = loadSchedules([other]);
    expect(paramsForTick(withDefault!, at("2025-01-10T12:00:00Z"))).toEqual({
      keyword: ["a"],
      day: ["2025-01-03"],
    });
  });
});
