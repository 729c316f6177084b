import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../cli/main.js";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { makeTables } from "../../../engine/run/runner.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await fakes.stop();
});

function captureOutput() {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => {
    out += String(c);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => {
    err += String(c);
    return true;
  });
  return () => ({ out, err });
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync sheets push on ${kind}`, () => {
    it("pushes a pipeline table with typed values, and a query's rows", async () => {
      const fake = await fakes.start();
      fake.createSpreadsheet("cli");
      vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", fake.token);
      vi.stubEnv("SKILLSYNC_SHEETS_API_URL", fake.url);
      const db = freshWarehouseUrl(kind);
      const w = await openWarehouse(db);
      try {
        await makeTables(w, [loadPipeline("marketplace-search")]);
        await w.db
          .insertInto("marketplace_search_results")
          .values({
            keyword: "usb hub",
            page: 1,
            item_index: 0,
            observed_at: "2025-01-02T03:04:05.000Z",
            asin: "B0TEST",
            title: '=HYPERLINK("x")',
            price: 19.99,
            sponsored: w.adapter.bind(true, "boolean"),
            available_date: "2025-01-01",
            run_id: "r1",
            loaded_at: "2025-01-02T03:04:05.000Z",
          })
          .execute();
      } finally {
        await w.close();
      }
      const output = captureOutput();
      const code = await main([
        "sheets",
        "push",
        "--table",
        "marketplace_search_results",
        "--spreadsheet",
        "cli",
        "--tab",
        "Results",
        "--db",
        db,
      ]);
      expect(code, output().err).toBe(0);
      expect(output().out).toMatch(
        /pushed 1 row\(s\) × \d+ column\(s\) to "Results" \(replace, tab created\)/,
      );
      const values = fake.values("cli", "Results");
      const header = values[0] as string[];
      const row = values[1]!;
      const at = (c: string) => row[header.indexOf(c)];
      expect(at("sponsored")).toBe(true);
      expect(at("price")).toBe(19.99);
      expect(at("title")).toBe('=HYPERLINK("x")');
      expect(at("available_date")).toBe("2025-01-01");
      expect(at("observed_at")).toBe("2025-01-02T03:04:05.000Z");

      const q = await main([
        "sheets",
        "push",
        "--sql",
        "select asin, price * 2 as double_price from marketplace_search_results",
        "--spreadsheet",
        "cli",
        "--tab",
        "Q",
        "--db",
        db,
      ]);
      expect(q).toBe(0);
      expect(fake.values("cli", "Q")).toEqual([
        ["asin", "double_price"],
        ["B0TEST", 39.98],
      ]);

      const missing = await main([
        "sheets",
        "push",
        "--table",
        "nope",
        "--spreadsheet",
        "cli",
        "--tab",
        "X",
        "--db",
        db,
      ]);
      expect(missing).toBe(2);
      expect(output().err).toMatch(/no table "nope"/);
    });
  });
}

describe("skillsync sheets, without set-up", () => {
  it("says what to set, and checks its flags", async () => {
    vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", "");
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", "");
    const output = captureOutput();
    expect(await main(["sheets", "read", "--spreadsheet", "x", "--range", "A:A"])).toBe(2);
    expect(output().err).toMatch(/GOOGLE_APPLICATION_CREDENTIALS/);
    expect(await main(["sheets", "push", "--spreadsheet", "x", "--tab", "t"])).toBe(2);
    expect(output().err).toMatch(/exactly one of --table/);
    expect(
      await main(["sheets", "push", "--table", "t", "--spreadsheet", "x", "--tab", "t", "--mode", "merge"]),
    ).toBe(2);
  });

  it("says plainly when the key file is missing or not a key, sending nothing", async () => {
    vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", "");
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/sa.json");
    const output = captureOutput();
    expect(await main(["sheets", "read", "--spreadsheet", "x", "--range", "A:A"])).toBe(2);
    expect(output().err).toMatch(/the Google key file \/nonexistent\/sa.json does not exist/);
    const notAKey = fileURLToPath(new URL("../../server/signature-vectors.json", import.meta.url));
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", notAKey);
    expect(await main(["sheets", "read", "--spreadsheet", "x", "--range", "A:A"])).toBe(2);
    expect(output().err).toMatch(/is not a Google credentials file/);
  });

  it("reads a range through the CLI", async () => {
    const fake = await fakes.start();
    fake.createSpreadsheet("r", [{ title: "In", values: [["k"], ["a "], [""], ["b"]] }]);
    vi.stubEnv("SKILLSYNC_SHEETS_ACCESS_TOKEN", fake.token);
    vi.stubEnv("SKILLSYNC_SHEETS_API_URL", fake.url);
    const output = captureOutput();
    expect(await main(["sheets", "read", "--spreadsheet", "r", "--range", "In!A2:A", "--json"])).toBe(0);
    expect(JSON.parse(output().out)).toEqual(["a", "b"]);
  });
});
