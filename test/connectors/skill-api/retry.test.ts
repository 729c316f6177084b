import { describe, expect, it } from "vitest";
import { backoffDelay, parseRetryAfter } from "../../../connectors/skill-api/index.js";

describe("parseRetryAfter", () => {
  const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
  it.each([
    ["3", 3000],
    ["0", 0],
    [" 120 ", 120_000],
    ["1.5", 1500],
    ["Wed, 21 Oct 2026 07:28:05 GMT", 5000],
    ["Wed, 21 Oct 2026 07:27:00 GMT", 0], // a date in the past means now
    [["2", "9"], 2000],
    [undefined, undefined],
    ["", undefined],
    ["-5", undefined],
    ["soon", undefined],
  ] as const)("%j → %j ms", (header, ms) => {
    expect(parseRetryAfter(header as string | string[] | undefined, now)).toBe(ms);
  });
});

describe("backoffDelay (full jitter)", () => {
  it("doubles the ceiling per retry and never passes the cap", () => {
    expect([0, 1, 2, 3].map((r) => backoffDelay(r, 500, 60_000, () => 0.999))).toEqual([
      499, 999, 1998, 3996,
    ]);
    expect(backoffDelay(40, 500, 60_000, () => 0.999)).toBe(59_940);
    expect(backoffDelay(3, 500, 60_000, () => 0)).toBe(0);
  });

  it("spreads waits over the whole range", () => {
    const waits = Array.from({ length: 200 }, () => backoffDelay(4, 100, 60_000));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeLessThan(1600);
    expect(new Set(waits).size).toBeGreaterThan(50);
  });
});
