import { afterEach, describe, expect, it } from "vitest";
import { TRUNCATION_MARK } from "../../../connectors/sheets/index.js";
import { sheetsFakes, valueWrites } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

describe("Sheets limits and write discipline", () => {
  it("refuses a table past 10 million cells before sending anything or reading a row", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("l");
    const sheets = await fakes.connector(fake);
    let read = false;
    await expect(
      sheets.pushTable(
        { spreadsheet: "l", tab: "T" },
        {
          columns: ["a", "b", "c"],
          rowCount: 4_000_000,
          rows: async () => {
            read = true;
            return [];
          },
        },
      ),
    ).rejects.toMatchObject({
      code: "SHEETS_LIMIT",
      exitCode: 2,
      message: expect.stringMatching(/12,000,003 cells/),
    });
    expect(read).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it("counts the other tabs: refused after reading the tab list, before any write", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("l2", [{ title: "Huge", rowCount: 999_000, columnCount: 10 }]);
    const sheets = await fakes.connector(fake);
    const rows = Array.from({ length: 5000 }, (_, i) => [i, i, i]);
    await expect(
      sheets.pushTable({ spreadsheet: "l2", tab: "T" }, { columns: ["a", "b", "c"], rows }),
    ).rejects.toMatchObject({ code: "SHEETS_LIMIT", message: expect.stringMatching(/at most 10,000,000/) });
    expect(fake.requests.map((r) => r.method)).toEqual(["GET"]);
  });

  it("refuses bad tab names and too many columns before sending", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("l3");
    const sheets = await fakes.connector(fake);
    await expect(
      sheets.pushTable({ spreadsheet: "l3", tab: "x".repeat(101) }, { columns: ["a"], rows: [] }),
    ).rejects.toMatchObject({ code: "SHEETS_LIMIT" });
    const columns = Array.from({ length: 18_279 }, (_, i) => `c${i}`);
    await expect(
      sheets.pushTable({ spreadsheet: "l3", tab: "T" }, { columns, rows: [] }),
    ).rejects.toMatchObject({
      code: "SHEETS_LIMIT",
      message: expect.stringMatching(/18278/),
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("cuts text longer than 50,000 characters and marks it", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("t");
    const sheets = await fakes.connector(fake);
    const long = "é".repeat(60_000);
    const r = await sheets.pushTable(
      { spreadsheet: "t", tab: "T" },
      { columns: ["text", "n"], rows: [[long, 1]] },
    );
    expect(r.truncatedCells).toBe(1);
    const cell = fake.cell("t", "T", 2, 1) as { value: string };
    expect(cell.value).toHaveLength(50_000);
    expect(cell.value.endsWith(TRUNCATION_MARK)).toBe(true);
    expect(fake.cell("t", "T", 2, 2)).toEqual({ value: 1 });
  });

  it("writes one request at a time per spreadsheet, even for concurrent pushes", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("c");
    fake.setLatency(15);
    const sheets = await fakes.connector(fake, { maxRequestBytes: 2000 });
    const rows = Array.from({ length: 200 }, (_, i) => [i, `row ${i}`]);
    await Promise.all([
      sheets.pushTable({ spreadsheet: "c", tab: "A" }, { columns: ["n", "s"], rows }),
      sheets.pushTable({ spreadsheet: "c", tab: "B" }, { columns: ["n", "s"], rows }),
      sheets.pushTable({ spreadsheet: "c", tab: "A", mode: "append" }, { columns: ["n", "s"], rows }),
    ]);
    expect(valueWrites(fake).length).toBeGreaterThan(6);
    expect(fake.maxConcurrentWrites()).toBe(1);
    expect(fake.values("c", "A")).toHaveLength(401);
    expect(fake.values("c", "B")).toHaveLength(201);
  });

  it("paces writes to the per-user quota", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("p");
    const sheets = await fakes.connector(fake, { maxRequestBytes: 700, writesPerWindow: 3, windowMs: 400 });
    const rows = Array.from({ length: 40 }, (_, i) => [i, `row ${i}`]);
    const started = Date.now();
    const r = await sheets.pushTable({ spreadsheet: "p", tab: "T" }, { columns: ["n", "s"], rows });
    const elapsed = Date.now() - started;
    // addSheet + at least 3 value writes = 4+ writes: the 4th waits for the window to pass.
    expect(r.valueRequests).toBeGreaterThanOrEqual(3);
    expect(elapsed).toBeGreaterThanOrEqual(390);
  });
});
