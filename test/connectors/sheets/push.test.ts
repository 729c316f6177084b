import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes, valueWrites } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

const COLUMNS = ["id", "keyword", "price", "sponsored", "observed_on", "note"];
const TYPES = { id: "integer", price: "number", sponsored: "boolean", observed_on: "date" } as const;

function* bigTable(n: number) {
  for (let i = 1; i <= n; i++) {
    yield [
      i,
      `keyword ${i % 97}`,
      i / 100,
      i % 2,
      `2025-01-${String((i % 28) + 1).padStart(2, "0")}`,
      i % 5 ? null : "=1+1",
    ];
  }
}

describe("pushing a table", () => {
  it("pushes 100,000 rows in requests of at most ~2 MB, into a grown grid with a frozen header", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("big", [{ title: "Sheet1", rowCount: 1000, columnCount: 26 }]);
    const sheets = await fakes.connector(fake);
    const result = await sheets.pushTable(
      { spreadsheet: "big", tab: "Results" },
      { columns: COLUMNS, types: TYPES, rows: bigTable(100_000) },
    );
    expect(result).toMatchObject({
      rows: 100_000,
      columns: 6,
      tabCreated: true,
      range: "'Results'!A2:F100001",
    });

    const tab = fake.tab("big", "Results")!;
    expect([tab.rowCount, tab.columnCount, tab.frozenRowCount]).toEqual([100_001, 6, 1]);
    const writes = valueWrites(fake);
    expect(writes.length).toBe(result.valueRequests);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    for (const w of writes) expect(w.bytes).toBeLessThanOrEqual(2_000_000);
    // Correctly sized: every request but the last is nearly full.
    for (const w of writes.slice(0, -1)) expect(w.bytes).toBeGreaterThan(1_900_000);
    // The tab (and its grid) existed before the first value was written.
    const firstWrite = fake.requests.indexOf(writes[0]!);
    const addSheet = fake.requests.findIndex((r) => r.path.endsWith(":batchUpdate"));
    expect(addSheet).toBeGreaterThanOrEqual(0);
    expect(addSheet).toBeLessThan(firstWrite);
    expect(writes.every((w) => w.query["valueInputOption"] === "RAW")).toBe(true);

    const values = fake.values("big", "Results");
    expect(values).toHaveLength(100_001);
    expect(values[0]).toEqual(COLUMNS);
    expect(values[1]).toEqual([1, "keyword 1", 0.01, true, "2025-01-02"]);
    expect(values[5]).toEqual([5, "keyword 5", 0.05, true, "2025-01-06", "=1+1"]);
    expect(values[100_000]).toEqual([100_000, `keyword ${100_000 % 97}`, 1000, false, "2025-01-13", "=1+1"]);
  });

  it("pushes a table without rows as a header (the tab keeps a row besides the frozen one)", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("e");
    const sheets = await fakes.connector(fake);
    const r = await sheets.pushTable({ spreadsheet: "e", tab: "Empty" }, { columns: ["a", "b"], rows: [] });
    expect(r).toMatchObject({ rows: 0, range: "", tabCreated: true });
    expect(fake.values("e", "Empty")).toEqual([["a", "b"]]);
    expect(fake.tab("e", "Empty")).toMatchObject({ rowCount: 2, frozenRowCount: 1 });
  });

  it("keeps formula-looking text as text (RAW)", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("f");
    const sheets = await fakes.connector(fake);
    await sheets.pushTable(
      { spreadsheet: "f", tab: "T" },
      { columns: ["text"], rows: [["=1+1"], ['=IMPORTXML("x")']] },
    );
    expect(fake.cell("f", "T", 2, 1)).toEqual({ value: "=1+1" });
    expect(fake.cell("f", "T", 3, 1)).toEqual({ value: '=IMPORTXML("x")' });
  });

  it("replace clears what the previous table left below and to the right", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("r");
    const sheets = await fakes.connector(fake);
    const wide = Array.from({ length: 10 }, (_, i) => [i, `a${i}`, `b${i}`, `c${i}`]);
    await sheets.pushTable({ spreadsheet: "r", tab: "T" }, { columns: ["n", "a", "b", "c"], rows: wide });
    expect(fake.values("r", "T")).toHaveLength(11);
    await sheets.pushTable(
      { spreadsheet: "r", tab: "T", mode: "replace" },
      {
        columns: ["n", "a"],
        rows: [
          [1, "x"],
          [2, null],
          [3, "z"],
        ],
      },
    );
    expect(fake.values("r", "T")).toEqual([["n", "a"], [1, "x"], [2], [3, "z"]]);
  });

  it("append adds rows below the table, writing the header only once", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("a");
    const sheets = await fakes.connector(fake);
    const target = { spreadsheet: "a", tab: "Log", mode: "append" as const };
    await sheets.pushTable(target, {
      columns: ["day", "n"],
      rows: [
        ["2025-01-01", 1],
        ["2025-01-02", 2],
      ],
    });
    const r = await sheets.pushTable(target, { columns: ["day", "n"], rows: [["2025-01-03", 3]] });
    expect(r.range).toBe("'Log'!A4:B4");
    expect(fake.values("a", "Log")).toEqual([
      ["day", "n"],
      ["2025-01-01", 1],
      ["2025-01-02", 2],
      ["2025-01-03", 3],
    ]);
    expect(fake.tab("a", "Log")!.frozenRowCount).toBe(1);

    const before = fake.requests.length;
    await expect(sheets.pushTable(target, { columns: ["other"], rows: [[1]] })).rejects.toMatchObject({
      code: "SHEETS_LIMIT",
      message: expect.stringMatching(/same columns/),
    });
    expect(fake.requests.slice(before).some((q) => q.write)).toBe(false);
  });

  it("appends many chunks at fixed places below the first, growing the grid", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("a2", [
      {
        title: "Log",
        rowCount: 5,
        columnCount: 2,
        values: [
          ["k", "v"],
          ["x", 0],
        ],
      },
    ]);
    const sheets = await fakes.connector(fake, { maxRequestBytes: 1000 });
    const rows = Array.from({ length: 300 }, (_, i) => [`k${i}`, i]);
    const r = await sheets.pushTable(
      { spreadsheet: "a2", tab: "Log", mode: "append" },
      { columns: ["k", "v"], rows },
    );
    expect(r.valueRequests).toBeGreaterThan(3);
    const values = fake.values("a2", "Log");
    expect(values).toHaveLength(302);
    expect(values[2]).toEqual(["k0", 0]);
    expect(values[301]).toEqual(["k299", 299]);
  });

  it("absorbs a burst of 429s with backoff", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("q");
    const sheets = await fakes.connector(fake);
    fake.failNext(6, { status: 429 });
    const r = await sheets.pushTable({ spreadsheet: "q", tab: "T" }, { columns: ["a"], rows: [[1], [2]] });
    expect(r.rows).toBe(2);
    expect(fake.requests.filter((q) => q.status === 429)).toHaveLength(6);
    expect(fake.values("q", "T")).toEqual([["a"], [1], [2]]);
  });

  it("retries a 503 on a write at a fixed place; an append that landed before its 503 is not duplicated", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("u");
    const sheets = await fakes.connector(fake);
    fake.failNext(1, { status: 503, writesOnly: true });
    await sheets.pushTable({ spreadsheet: "u", tab: "T", mode: "append" }, { columns: ["a"], rows: [[1]] });
    expect(fake.values("u", "T")).toEqual([["a"], [1]]);

    // Appends are values.update at a computed place: repeating one writes the same cells again.
    const afterTab = fake.requests.length;
    fake.failNext(1, { status: 503, afterApplying: true, writesOnly: true, path: /\/values\// });
    await sheets.pushTable({ spreadsheet: "u", tab: "T", mode: "append" }, { columns: ["a"], rows: [[2]] });
    const sent = fake.requests.slice(afterTab);
    expect(sent.filter((q) => q.path.endsWith(":append"))).toHaveLength(0);
    expect(sent.filter((q) => q.method === "PUT").map((q) => q.status)).toEqual([503, 200]);
    expect(fake.values("u", "T")).toEqual([["a"], [1], [2]]);
  });

  it("gives up after a bounded number of retries", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("g");
    const sheets = await fakes.connector(fake, { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    fake.failNext(10, { status: 429 });
    await expect(sheets.readList("g", "Sheet1!A:A")).rejects.toMatchObject({ code: "SHEETS_UNAVAILABLE" });
    expect(fake.requests).toHaveLength(3);
  });
});
