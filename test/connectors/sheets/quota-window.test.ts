import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

/**
 * Google's write quota refills a minute after it ran out. Here the window is shortened and the
 * connector's backoff scaled by the same factor as its defaults (1 s floor, 20 s cap, 90 s);
 * SKILLSYNC_SHEETS_QUOTA_WINDOW_MS=60000 runs it with the real minute and the real defaults
 * (docs/sheets-push.md, "Manual run").
 */
const WINDOW_MS = Number(process.env["SKILLSYNC_SHEETS_QUOTA_WINDOW_MS"] ?? 1500);
const scale = WINDOW_MS / 60_000;
const retry =
  WINDOW_MS >= 60_000
    ? undefined
    : { baseDelayMs: 1000 * scale, maxDelayMs: 20_000 * scale, giveUpAfterMs: 90_000 * scale };

const COLUMNS = Array.from({ length: 12 }, (_, i) => `c${i}`);

function row(i: number): (string | number | boolean)[] {
  return [
    i,
    `kw ${i}`,
    i / 7,
    i % 3 === 0,
    `=A${i}`,
    -i * 1000,
    `2025-02-${String((i % 28) + 1).padStart(2, "0")}`,
    "x".repeat(i % 13),
    i * 31,
    `'quoted ${i}`,
    0.1 + i,
    `tail ${i % 11}`,
  ];
}

// Sheets leaves out trailing empty cells on reads; an empty string is no value at all.
const asRead = (r: (string | number | boolean)[]) => {
  const out = r.map((v) => v);
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
};

describe("pushes under a per-window write quota", () => {
  it(
    "replaces a tab with 60,000 × 12 cells under 3 writes per window, every cell exact",
    async () => {
      const fake = await fakes.start();
      fake.createSpreadsheet("q", [{ title: "Big", values: [["old"], ["old row"]] }]);
      fake.setWriteQuota({ writes: 3, windowMs: WINDOW_MS });
      // 1 MB requests: 8 of them, so the push waits for the quota to refill three times or more.
      const sheets = await fakes.connector(fake, { retry, maxRequestBytes: 1_000_000 });
      const rows = Array.from({ length: 60_000 }, (_, i) => row(i + 1));
      const r = await sheets.pushTable({ spreadsheet: "q", tab: "Big" }, { columns: COLUMNS, rows });
      const values = fake.values("q", "Big");
      expect(values).toHaveLength(60_001);
      expect(values[0]).toEqual(COLUMNS);
      for (let i = 0; i < rows.length; i++) {
        if (JSON.stringify(values[i + 1]) !== JSON.stringify(asRead(rows[i]!)))
          expect([i, values[i + 1]]).toEqual([i, asRead(rows[i]!)]);
      }
      expect(fake.titles("q")).toEqual(["Big"]);
      expect(r).toMatchObject({ rows: 60_000, columns: 12, staged: true, range: "'Big'!A2:L60001" });
      expect(fake.requests.filter((q) => q.status === 429).length).toBeGreaterThan(0);
    },
    Math.max(60_000, WINDOW_MS * 8),
  );

  it("a replace that cannot finish leaves the old table as it was", async () => {
    const fake = await fakes.start();
    const old = Array.from({ length: 50 }, (_, i) => [`old ${i}`, i]);
    fake.createSpreadsheet("s", [{ title: "T", values: [["a", "b"], ...old] }]);
    // The quota runs out after three writes and does not come back while the connector tries.
    fake.setWriteQuota({ writes: 3, windowMs: 60_000 });
    const sheets = await fakes.connector(fake, {
      maxRequestBytes: 1000,
      retry: { baseDelayMs: 5, maxDelayMs: 20, giveUpAfterMs: 150 },
    });
    const rows = Array.from({ length: 200 }, (_, i) => [`new ${i}`, i]);
    await expect(
      sheets.pushTable({ spreadsheet: "s", tab: "T" }, { columns: ["a", "b"], rows }),
    ).rejects.toMatchObject({ code: "SHEETS_UNAVAILABLE", message: expect.stringMatching(/429/) });
    expect(fake.values("s", "T")).toEqual([["a", "b"], ...old]);
    // Only hidden work tabs may remain (deleting them needs a write too).
    expect(fake.titles("s").filter((t) => !t.endsWith("(hidden)"))).toEqual(["T"]);
  });

  it("honours Retry-After when Google sends it", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("h");
    fake.setWriteQuota({ writes: 1, windowMs: 1000, retryAfter: true });
    // The backoff alone (≤ 20 ms, 300 ms in all) would give up long before the window refills.
    const sheets = await fakes.connector(fake, {
      retry: { baseDelayMs: 5, maxDelayMs: 20, giveUpAfterMs: 300 },
    });
    const started = Date.now();
    await sheets.pushTable({ spreadsheet: "h", tab: "T" }, { columns: ["a"], rows: [[1]] });
    expect(fake.values("h", "T")).toEqual([["a"], [1]]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.requests.filter((q) => q.status === 429)).toHaveLength(1);
  });
});
