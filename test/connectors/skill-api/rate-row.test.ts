import { describe, expect, it } from "vitest";
import {
  MIN_RATE,
  newRateRow,
  underDeclared,
  withRefusal,
  withSlot,
  withSuccesses,
} from "../../../connectors/skill-api/rate-row.js";

describe("an account's pace (rate-row)", () => {
  it("is unpaced until a refusal; the first spreads what got through over Retry-After, later ones take 90 % once per round", () => {
    const t0 = 1_000_000;
    let row = newRateRow(null, t0);
    expect(withSlot(row, t0).at).toBe(t0);
    // 20 got through at once, then a 429 with Retry-After 1 s: 20 per second, less 10 %.
    row = withRefusal(withSuccesses(row, 20, t0 + 200), t0, t0 + 200, 31, 1000);
    expect(row.rate).toBeCloseTo(18, 5);
    // What got through is the limit as far as is known: growth from 18 is the slow probe past 85 %
    // of it (a quarter call per second), not a quarter of the pace per second.
    expect(row.ceiling).toBeCloseTo(20, 5);
    // A refusal of a call sent before that drop belongs to the same round: no second drop.
    expect(withRefusal(row, t0 + 100, t0 + 300, 0).rate).toBe(row.rate);
    // A later round: 15 succeeded in the second since the drop, so 90 % of 15.
    const later = withRefusal(withSuccesses(row, 15, t0 + 1200), t0 + 1000, t0 + 1200, 0);
    expect(later.rate).toBeCloseTo(13.5, 5);
    // The ceiling is the pace the refusal came at: 18 grown a quarter call in that second.
    expect(later.ceiling).toBeCloseTo(18.25, 5);
  });

  it("before any answer came back, uses the calls not refused; with none at all, the slowest pace", () => {
    const row = newRateRow(null, 0);
    expect(withRefusal(row, 10, 100, 20, 1000).rate).toBeCloseTo(18, 5);
    expect(withRefusal(row, 10, 100, 0).rate).toBe(MIN_RATE);
  });

  it("grows back fast far below the ceiling, slowly near it, never above a declared limit", () => {
    const base = { ...newRateRow(null, 0), rate: 10, ceiling: 20 };
    // Far below: a quarter per second, up to 85 % of the ceiling.
    expect(withSuccesses(base, 5, 1000).rate).toBeCloseTo(12.5, 5);
    expect(withSuccesses(base, 5, 60_000).rate).toBeCloseTo(17, 5);
    // Near: 1 % of the pace per second, at least a quarter call: 10 s from 17 → + 2.5.
    const row = withSuccesses({ ...base, rate: 17 }, 5, 10_000);
    expect(row.rate).toBeCloseTo(19.5, 5);
    const declared = underDeclared(row, 12);
    expect(declared.rate).toBe(12);
    expect(withSuccesses(declared, 1, 60_000).rate).toBe(12);
    const a = withSlot(declared, 100_000);
    const b = withSlot(a.row, 100_000);
    expect(b.at - a.at).toBeCloseTo(1000 / 12, 5);
  });
});
