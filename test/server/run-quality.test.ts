import { describe, expect, it } from "vitest";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { writePipelineFile } from "../helpers/pipeline-files.js";
import { startTestServer, waitForRun } from "./helpers.js";

const file = writePipelineFile(
  `name: kw
skill: marketplace-search
params:
  seed: { required: true }
request:
  keyword: "{{seed}}"
records:
  path: products
  table: kw_results
  mode: append
  columns:
    asin: text
    price: { from: extractedPrice, type: integer }
    cpc: { from: costPerClick, type: number }
`,
  {},
  "kw.yaml",
);
const pipeline = loadPipeline(file);

describe("the server's run views", () => {
  it("show rejected records, empty columns, unmapped members and the warnings", async () => {
    const t = await startTestServer("sqlite", { pipelines: [pipeline] });
    const post = await t.call("POST", "/runs", { pipeline: "kw", params: { seed: "usb" } });
    expect(post.status).toBe(202);
    const run = await waitForRun(t, post.json.runId);
    expect(run.rows.rejected).toBeGreaterThan(0);
    expect(run.mapping).toMatchObject({ emptyColumns: 1 });
    expect(run.mapping.unmappedMembers).toBeGreaterThan(0);
    expect(run.warnings.join("\n")).toContain("cpc (from costPerClick)");
    const stored = await t.call("GET", `/runs/${run.warehouseRunId}`);
    expect(stored.json).toMatchObject({ mapping: { emptyColumns: 1 } });
    expect(stored.json.warnings.join("\n")).toMatch(/record\(s\) rejected/);
  });
});
