import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

const batchUpdates = (path: string) => path.endsWith(":batchUpdate") && !path.includes("/values");

describe("ambiguous failures of requests that cannot be repeated", () => {
  it("an addSheet that landed before its 503 counts as created (no 'already exists')", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("a");
    const sheets = await fakes.connector(fake);
    fake.failNext(1, { status: 503, afterApplying: true, path: /:batchUpdate$/ });
    const r = await sheets.pushTable({ spreadsheet: "a", tab: "New" }, { columns: ["x"], rows: [[1], [2]] });
    expect(r).toMatchObject({ tabCreated: true, rows: 2 });
    expect(fake.values("a", "New")).toEqual([["x"], [1], [2]]);
    expect(fake.tab("a", "New")).toMatchObject({ frozenRowCount: 1 });
    const adds = fake.requests.filter((q) => batchUpdates(q.path));
    expect(adds.map((q) => q.status)).toEqual([503]);
  });

  it("an addSheet that did not land is sent again", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("b");
    const sheets = await fakes.connector(fake);
    fake.failNext(1, { status: 503, path: /:batchUpdate$/ });
    await sheets.pushTable({ spreadsheet: "b", tab: "New" }, { columns: ["x"], rows: [[1]] });
    expect(fake.values("b", "New")).toEqual([["x"], [1]]);
    expect(fake.requests.filter((q) => batchUpdates(q.path)).map((q) => q.status)).toEqual([503, 200]);
  });

  it("a replace whose swap landed before its 503 is not swapped twice", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("c", [{ title: "T", values: [["x"], ["old1"], ["old2"], ["old3"]] }]);
    const sheets = await fakes.connector(fake);
    // The first batchUpdate adds the hidden tab, the second swaps it in.
    fake.failNext(1, {
      status: 503,
      afterApplying: true,
      skip: 1,
      path: /^\/v4\/spreadsheets\/c:batchUpdate$/,
    });
    const first = fake.requests.length;
    const r = await sheets.pushTable({ spreadsheet: "c", tab: "T" }, { columns: ["x"], rows: [["new"]] });
    expect(r).toMatchObject({ staged: true, rows: 1 });
    expect(fake.values("c", "T")).toEqual([["x"], ["new"]]);
    expect(fake.tab("c", "T")!.sheetId).toBe(0);
    // Hidden tab added (200), swap landed but answered 503: the tab list shows it landed, no repeat.
    expect(
      fake.requests
        .slice(first)
        .filter((q) => batchUpdates(q.path))
        .map((q) => q.status),
    ).toEqual([200, 503]);
    expect(fake.titles("c")).toEqual(["T"]);
  });
});
