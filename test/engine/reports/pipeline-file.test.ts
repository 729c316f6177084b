import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";
import { pipelineFrom } from "../fixtures.js";
import { run } from "./helpers.js";

describe("report pipeline files", () => {
  let w: Warehouse | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  it("the built-ins declare the three operations, backoff defaults and their params", () => {
    const sis = loadPipeline("ads-sp-search-impression-share");
    expect(sis.report).toEqual({
      status: "marketplace-ads-sp-insights-report-status",
      download: "marketplace-ads-sp-insights-report-download",
      poll: { initial: "5s", max: "2m", factor: 2, timeout: "3h" },
    });
    expect(Object.keys(sis.params)).toEqual([
      "connection",
      "start",
      "end",
      "step",
      "advertiserAccountId",
      "timeUnit",
    ]);
    expect(sis.window).toEqual({ start: "{{start}}", end: "{{end}}", step: "{{step}}", lookback: "3d" });
    const audience = loadPipeline("ads-sp-audience");
    expect(audience.records.table).toBe("ads_sp_audience");
    expect(audience.params["detailLevel"]?.enum).toEqual(["ACCOUNT", "CAMPAIGN", "AD_GROUP"]);
    const minimal = pipelineFrom(`name: r
skill: marketplace-ads-sp-audience-report
request: { connectionId: 1, startDate: "2025-01-01", endDate: "2025-01-02" }
report: { status: marketplace-ads-sp-insights-report-status, download: marketplace-ads-sp-insights-report-download }
records: { path: ., table: r, mode: append }
`);
    expect(minimal.report?.poll).toEqual({ initial: "2s", max: "1m", factor: 2, timeout: "2h" });
  });

  it("refuses a report pipeline with swapped operations or a records path before anything is sent", async () => {
    const { emulator, client } = await emulatorWithClient();
    w = await openWarehouse(freshWarehouseUrl("sqlite"));
    const bad = pipelineFrom(`name: bad-report
skill: marketplace-ads-sp-audience-report
request: { connectionId: 1, startDate: "2025-01-01", endDate: "2025-01-02" }
report:
  status: marketplace-ads-sp-insights-report-download
  download: marketplace-ads-sp-insights-report-status
records: { path: rows, table: bad_report, mode: append }
`);
    const err = await run(w, client, bad, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues).toEqual([
      'records.path: must be "." for a report: the CSV rows are the records',
      "report.status: marketplace-ads-sp-insights-report-download is a report download operation, not the status one",
      "report.download: marketplace-ads-sp-insights-report-status is a report status operation, not the download one",
    ]);
    expect(emulator.ledger().totalCalls).toBe(0);
  });
});
