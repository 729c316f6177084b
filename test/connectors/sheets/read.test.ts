import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { resolveInput } from "../../../engine/define/inputs.js";
import { parsePipeline } from "../../../engine/define/pipeline-file.js";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

describe("reading input lists from a sheet", () => {
  it("returns the non-blank cells of a range, trimmed, row by row", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("s1", [
      {
        title: "Keywords",
        values: [
          ["keyword", "note"],
          ["  usb hub "],
          [""],
          ["   "],
          ["desk lamp", "x"],
          [4711],
          ["", ""],
          ["standing desk"],
        ],
      },
    ]);
    const sheets = await fakes.connector(fake);
    expect(await sheets.readList("s1", "Keywords!A2:A")).toEqual([
      "usb hub",
      "desk lamp",
      "4711",
      "standing desk",
    ]);
    expect(await sheets.readList("s1", "Keywords!A2:B")).toEqual([
      "usb hub",
      "desk lamp",
      "x",
      "4711",
      "standing desk",
    ]);
    // The fake trims trailing empty rows and cells, as the API does.
    expect(await sheets.readRange("s1", "Keywords!B1:B")).toEqual([["note"], [], [], [], ["x"]]);
    const get = fake.requests.find((r) => r.method === "GET" && r.path.includes("/values/"));
    expect(get?.query["valueRenderOption"]).toBe("UNFORMATTED_VALUE");
  });

  it("feeds a pipeline's `from: sheet` input through the engine", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("s2", [{ title: "In", values: [["asin"], ["B0A"], [" B0B "], ["B0A"], [""]] }]);
    const sheets = await fakes.connector(fake);
    const p = parsePipeline(
      [
        "name: sheet-input",
        "skill: marketplace-search",
        "input: { name: keyword, from: { sheet: { spreadsheet: s2, range: 'In!A2:A' } } }",
        "request: { keyword: '{{keyword}}' }",
        "records: { path: products, table: sheet_input_rows, mode: append }",
      ].join("\n"),
      "/tmp/sheet-input.yaml",
    );
    const w = await openWarehouse(":memory:");
    try {
      const values = await resolveInput(p, { warehouse: w, params: {}, sheet: sheets.reader() });
      expect(values).toEqual(["B0A", "B0B"]);
      await expect(resolveInput(p, { warehouse: w, params: {} })).rejects.toThrow(
        /GOOGLE_APPLICATION_CREDENTIALS/,
      );
    } finally {
      await w.close();
    }
  });

  it("says to share the sheet when Google answers 403, and names a missing spreadsheet", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("private");
    fake.deny("private");
    const sheets = await fakes.connector(fake);
    await expect(sheets.readList("private", "Sheet1!A:A")).rejects.toMatchObject({
      code: "SHEETS_ACCESS",
      exitCode: 4,
      message: expect.stringMatching(/share the spreadsheet with the service account/),
    });
    await expect(sheets.readList("nope", "Sheet1!A:A")).rejects.toMatchObject({ code: "SHEETS_NOT_FOUND" });
  });

  it("refuses a wrong token without retrying", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("s3");
    const sheets = await fakes.connector(fake, { credentials: { accessToken: "wrong-token-xyz-123" } });
    await expect(sheets.readList("s3", "Sheet1!A:A")).rejects.toMatchObject({
      code: "SHEETS_AUTH",
      exitCode: 4,
    });
    expect(fake.requests).toHaveLength(1);
  });
});
