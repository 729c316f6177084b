import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

// A table with an empty row (4) and rows whose first cell is empty (5, 6).
const EXISTING = [["k", "a", "b"], [1, "x", "y"], [2, "x", "y"], [], ["", "p", "q"], ["", "r", "s"]];
const NEW_ROWS = [
  [10, "n1", "m1"],
  [11, "n2", "m2"],
  [12, "n3", "m3"],
  [13, "n4", "m4"],
];

describe("append on a table with gaps", () => {
  for (const reading of ["last-table", "first-table"] as const) {
    it(`starts in column A on the row after the last used row (values.append reading: ${reading})`, async () => {
      const fake = await fakes.start();
      fake.setAppendReading(reading);
      fake.createSpreadsheet("g", [{ title: "Log", rowCount: 8, columnCount: 3, values: EXISTING }]);
      const sheets = await fakes.connector(fake);
      const r = await sheets.pushTable(
        { spreadsheet: "g", tab: "Log", mode: "append" },
        { columns: ["k", "a", "b"], rows: NEW_ROWS },
      );
      expect(r).toMatchObject({ rows: 4, range: "'Log'!A7:C10" });
      expect(fake.values("g", "Log")).toEqual([...EXISTING, ...NEW_ROWS]);
      // Grown by the rows only (never a column to the right).
      expect(fake.tab("g", "Log")).toMatchObject({ rowCount: 10, columnCount: 3 });
      expect(fake.requests.some((q) => q.path.endsWith(":append"))).toBe(false);
    });
  }

  it("counts a last row that has a value only past the table's columns", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("g2", [
      { title: "Log", rowCount: 10, columnCount: 5, values: [["k"], [1], [], [null, null, null, "note"]] },
    ]);
    const sheets = await fakes.connector(fake);
    const r = await sheets.pushTable(
      { spreadsheet: "g2", tab: "Log", mode: "append" },
      { columns: ["k"], rows: [[2]] },
    );
    expect(r.range).toBe("'Log'!A5:A5");
    expect(fake.values("g2", "Log")[4]).toEqual([2]);
  });

  it("refuses a tab with rows but an empty first row, before writing", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("g3", [{ title: "Log", values: [[], ["stray"]] }]);
    const sheets = await fakes.connector(fake);
    await expect(
      sheets.pushTable({ spreadsheet: "g3", tab: "Log", mode: "append" }, { columns: ["k"], rows: [[1]] }),
    ).rejects.toMatchObject({ code: "SHEETS_LIMIT", message: expect.stringMatching(/no header in row 1/) });
    expect(fake.requests.some((q) => q.write)).toBe(false);
  });
});
