import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, mayRetry, retryDelay } from "../../../connectors/sheets/retry.js";

describe("the Sheets retry policy", () => {
  it("keeps trying past a one-minute quota window by default, even with the shortest waits", () => {
    let waited = 0;
    let retries = 0;
    // random() = 0: every wait at its floor (half its step).
    while (mayRetry(DEFAULT_RETRY, retries, waited))
      waited += retryDelay(retries++, DEFAULT_RETRY, undefined, () => 0);
    expect(waited).toBeGreaterThanOrEqual(70_000);
    expect(retries).toBeLessThan(20);
  });

  it("waits exponentially with a floor and a cap, and never less than Retry-After", () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(0, p, undefined, () => 0)).toBe(50);
    expect(retryDelay(0, p, undefined, () => 1)).toBe(100);
    expect(retryDelay(3, p, undefined, () => 0)).toBe(400);
    expect(retryDelay(10, p, undefined, () => 1)).toBe(1000);
    expect(retryDelay(0, p, 5000, () => 0.5)).toBe(5000);
  });

  it("gives up after the window or the retry bound, whichever comes first", () => {
    const p = { ...DEFAULT_RETRY, giveUpAfterMs: 1000, maxRetries: 3 };
    expect(mayRetry(p, 0, 999)).toBe(true);
    expect(mayRetry(p, 0, 1000)).toBe(false);
    expect(mayRetry(p, 3, 0)).toBe(false);
  });
});
