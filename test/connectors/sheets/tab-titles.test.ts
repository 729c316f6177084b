import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

describe("tab titles, resolved as Google resolves them", () => {
  it("pushes to `results` when `Results` exists: the existing tab, no 400", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("t", [{ title: "Results", values: [["n"], [1]] }]);
    const sheets = await fakes.connector(fake);
    const r = await sheets.pushTable({ spreadsheet: "t", tab: "results" }, { columns: ["n"], rows: [[7]] });
    expect(r).toMatchObject({ tab: "Results", tabCreated: false, range: "'Results'!A2:A2" });
    expect(fake.titles("t")).toEqual(["Results"]);
    expect(fake.values("t", "Results")).toEqual([["n"], [7]]);

    await sheets.pushTable(
      { spreadsheet: "t", tab: "RESULTS", mode: "append" },
      { columns: ["n"], rows: [[8]] },
    );
    expect(fake.values("t", "Results")).toEqual([["n"], [7], [8]]);
  });

  it("prefers the exact title, and keeps awkward titles quoted", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("u", [{ title: "Bob's 'tab'!" }]);
    const sheets = await fakes.connector(fake);
    await sheets.pushTable({ spreadsheet: "u", tab: "BOB'S 'TAB'!" }, { columns: ["a"], rows: [["v"]] });
    expect(fake.titles("u")).toEqual(["Bob's 'tab'!"]);
    expect(fake.values("u", "Bob's 'tab'!")).toEqual([["a"], ["v"]]);
  });
});
