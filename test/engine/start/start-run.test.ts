import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { startRun } from "../../../engine/start/start-run.js";
import { sheetsFakes } from "../../connectors/sheets/helpers.js";
import { afterTest } from "../../helpers/after-test.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

// The one use-case every front door starts a run with: the run, then what follows its load.
const pipeline = loadPipeline(
  fileURLToPath(new URL("../../mcp/pipelines/keyword-sheet.yaml", import.meta.url)),
);

async function setUp() {
  const { client } = await emulatorWithClient();
  const warehouse = await openWarehouse(freshWarehouseUrl("sqlite"));
  afterTest(() => warehouse.close());
  return { warehouse, client, pipelines: [pipeline] };
}

describe("startRun", () => {
  it("pushes the pipeline's sheet: output once the run has loaded, and answers the run and the push", async () => {
    const fakes = sheetsFakes();
    afterTest(() => fakes.stop());
    const fake = await fakes.start();
    fake.createSpreadsheet("book1", [{ title: "Sheet1", values: [] }]);
    const sheets = await fakes.connector(fake);
    const { summary, outputs } = await startRun({
      ...(await setUp()),
      params: { keyword: ["usb hub"], label: ["S"] },
      outputs: { sheets },
    });
    expect(summary.status).toBe("succeeded");
    const rows = summary.counters.rowsWritten;
    expect(outputs.pushes).toMatchObject([{ pipeline: "keyword-sheet", result: { tab: "Results S", rows } }]);
    expect(outputs.lines).toEqual([`sheet: keyword-sheet: ${rows} row(s) to "Results S" (replace)`]);
    expect(fake.values("book1", "Results S")).toHaveLength(rows + 1);
  });

  it("says the output was not pushed when Google Sheets is not configured, and pushes nothing unasked", async () => {
    const run = { ...(await setUp()), params: { keyword: ["desk lamp"] } };
    const bare = await startRun({ ...run, outputs: { sheets: undefined } });
    expect(bare.summary.status).toBe("succeeded");
    expect(bare.outputs.pushes).toEqual([]);
    expect(bare.outputs.lines).toEqual([expect.stringMatching(/^sheet outputs not pushed: /)]);
    const unasked = await startRun(run);
    expect(unasked.outputs).toEqual({ pushes: [], lines: [] });
  });
});
