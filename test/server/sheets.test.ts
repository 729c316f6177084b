import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { sheetsFakes } from "../connectors/sheets/helpers.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer, waitForRun } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

const pipelineFile = fileURLToPath(new URL("./pipelines/sheet-keywords.yaml", import.meta.url));

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`server runs with Google Sheets on ${kind}`, () => {
    it("reads a run's inputs from a sheet and pushes the rows it loaded back", async () => {
      const fake = await fakes.start();
      fake.createSpreadsheet("book1", [
        { title: "Keywords", values: [["keyword"], [" usb hub"], [""], ["desk lamp"]] },
      ]);
      const sheets = await fakes.connector(fake);
      const t = await startTestServer(kind, { sheets, pipelines: [loadPipeline(pipelineFile)] });

      const post = await t.call("POST", "/runs", {
        pipeline: "sheet-keywords",
        params: { label: "X" },
        maxCredits: 5,
      });
      expect(post.status).toBe(202);
      const run = await waitForRun(t, post.json.runId);
      expect(run).toMatchObject({ status: "succeeded", calls: { done: 2 }, errors: [] });
      const loaded = await t.call("GET", "/tables/sheet_keyword_results?columns=keyword&limit=5000");
      expect(new Set(loaded.json.rows.map((r: { keyword: string }) => r.keyword))).toEqual(
        new Set(["usb hub", "desk lamp"]),
      );
      expect(run.sheetPushes).toEqual([
        { pipeline: "sheet-keywords", tab: "Results X", rows: run.rows.written, range: expect.any(String) },
      ]);

      const values = fake.values("book1", "Results X");
      expect(values).toHaveLength(run.rows.written + 1);
      const header = values[0] as string[];
      expect(header.slice(0, 5)).toEqual(["keyword", "position", "asin", "sponsored", "price"]);
      expect(values.slice(1).every((r) => typeof r[header.indexOf("sponsored")] === "boolean")).toBe(true);
      expect(fake.tab("book1", "Results X")!.frozenRowCount).toBe(1);
    });
  });
}
