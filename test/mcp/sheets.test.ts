import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { sheetsFakes } from "../connectors/sheets/helpers.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-sheets-7e2a";
const folder = fileURLToPath(new URL("./pipelines", import.meta.url));

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp pushes a run's sheet: output, on ${kind}`, () => {
    it("an MCP run pushes the rows it loaded to the pipeline's sheet, as the other triggers do", async () => {
      const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }] });
      const fake = await fakes.start();
      fake.createSpreadsheet("book1", [{ title: "Sheet1", values: [] }]);
      const db = freshWarehouseUrl(kind);
      const args = ["--db", db, "--max-credits", "10", "--pipelines", folder];
      const api = { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: emulator.url };
      const mcp = await startMcp(args, {
        ...api,
        SKILLSYNC_SHEETS_ACCESS_TOKEN: fake.token,
        SKILLSYNC_SHEETS_API_URL: fake.url,
      });
      const run = await mcp.call("run", {
        pipeline: "keyword-sheet",
        params: { keyword: ["usb hub", "desk lamp"], label: "M" },
        maxCredits: 5,
      });
      expect(run.isError, run.text).toBe(false);
      expect(run.json).toMatchObject({ status: "succeeded", calls: { done: 2 } });
      const written = run.json.rows.written as number;
      expect(written).toBeGreaterThan(0);
      expect(run.json.sheetPushes).toEqual([
        { pipeline: "keyword-sheet", tab: "Results M", rows: written, range: expect.any(String) },
      ]);
      expect(run.json.warnings).toEqual([]);
      const values = fake.values("book1", "Results M");
      expect(values).toHaveLength(written + 1);
      expect((values[0] as string[]).slice(0, 3)).toEqual(["keyword", "position", "asin"]);
      await mcp.close();

      // Without Google credentials the run still loads, and says its output was not pushed.
      const bare = await startMcp(args, api);
      const again = await bare.call("run", {
        pipeline: "keyword-sheet",
        params: { keyword: ["usb hub"], label: "N" },
        maxCredits: 5,
      });
      expect(again.json).toMatchObject({ status: "succeeded", sheetPushes: [] });
      expect(again.json.warnings).toEqual([
        { code: "SHEETS", message: expect.stringMatching(/^sheet output not pushed: /) },
      ]);
      expect(fake.tab("book1", "Results N")).toBeUndefined();
    });
  });
}
