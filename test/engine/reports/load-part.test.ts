import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import type { LoadedPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPart } from "../../../engine/reports/load-part.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { insertJob, updateJob } from "../../../store/report-jobs.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { pipelineFrom } from "../fixtures.js";
import { count, jobs, rows } from "./helpers.js";

const CSV = [
  '\uFEFF"Date","Campaign Name","Impression Share %","Spend","Clicks","New Metric","Launch Day","Notes"\r\n',
  "\r\n",
  '2025-03-01,"Summer, Sale","12.5%","$1,234.50",7,0.5,2025-02-01,"He said ""hi"""\r\n',
  '2025-03-02,"Multi\nline","--",3.2,0,1.5,,"Größe 🎄 收纳"\n',
  "\n",
  "2025-03-03,plain,7%,0,1,2,2025-02-03,x\r\n",
  "2025-03-04,bad spend,1%,lots,1,2,2025-02-03,y\r\n",
  "2025-03-05,too few\r\n",
].join("");

const pipelineYaml = (inferColumns: boolean) => `name: mini-report
skill: marketplace-ads-sp-search-impression-share-report
params:
  connection: { type: integer, required: true }
request: { connectionId: "{{connection}}", startDate: "2025-03-01", endDate: "2025-03-07" }
report:
  status: marketplace-ads-sp-insights-report-status
  download: marketplace-ads-sp-insights-report-download
records:
  path: .
  table: mini_report
  mode: replace
  inferColumns: ${inferColumns}
  columns:
    connection_id: { from: $request.connectionId, type: integer }
    date: date
    campaign: { from: Campaign Name }
    impression_share_pct: number
    spend: number
    clicks: integer
`;

async function jobFor(w: Warehouse, p: LoadedPipeline): Promise<number> {
  await migrateToLatest(w);
  const id = await insertJob(w.db, {
    pipeline: p.name,
    pipelineFile: p.file,
    skill: p.skill,
    requestHash: "h1",
    request: { connectionId: 5 },
    params: {},
    runId: "r1",
    credits: 10,
  });
  await updateJob(w.db, id, { reportId: "rpt-1", status: "downloading", parts: [{ documentToken: "d1" }] });
  return id;
}

const load = (w: Warehouse, pipeline: LoadedPipeline, jobId: number, content = CSV) =>
  loadPart({
    warehouse: w,
    pipeline,
    jobId,
    reportId: "rpt-1",
    part: 0,
    content,
    requestHash: "download-h1",
    context: {
      input: undefined,
      request: { connectionId: 5 },
      params: {},
      observedAt: "2025-03-08T00:00:00.000Z",
      runId: "r1",
      skill: pipeline.skill,
    },
  });

describe.each(WAREHOUSE_KINDS)("loading a CSV part on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });

    it("writes the exact cells, typed; infers unknown columns; rejects what cannot be typed; marks the part once", async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      const p = pipelineFrom(pipelineYaml(true));
      const jobId = await jobFor(w, p);
      expect(await load(w, p, jobId)).toEqual({ rows: 3, rejected: 2, skipped: false });
      const got = await rows(
        w,
        `select report_id, report_part, report_row, connection_id, date, campaign, impression_share_pct, spend, clicks,
         new_metric, launch_day, notes from mini_report order by report_row`,
      );
      expect(got.map((r) => Object.values(r))).toEqual([
        ["rpt-1", 1, 1, 5, "2025-03-01", "Summer, Sale", 12.5, 1234.5, 7, 0.5, "2025-02-01", 'He said "hi"'],
        ["rpt-1", 1, 2, 5, "2025-03-02", "Multi\nline", null, 3.2, 0, 1.5, null, "Größe 🎄 收纳"],
        ["rpt-1", 1, 3, 5, "2025-03-03", "plain", 7, 0, 1, 2, "2025-02-03", "x"],
      ]);
      const rejects = await rows<{ reason: string }>(w, "select reason from skillsync_rejects order by id");
      expect(rejects.map((r) => r.reason)).toEqual([
        'column mini_report.spend: "lots" is not a number',
        "row 5 has 2 fields, the header 8",
      ]);
      expect((await jobs(w))[0]).toMatchObject({ parts_loaded: [0], rows_loaded: 3 });

      expect(await load(w, p, jobId)).toEqual({ rows: 0, rejected: 0, skipped: true });
      expect(await count(w, "mini_report")).toBe(3);
    });

    it("keeps undeclared columns in the extra JSON when inferColumns is off", async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      const p = pipelineFrom(pipelineYaml(false));
      await load(w, p, await jobFor(w, p));
      const [first] = await rows<{ extra: unknown }>(w, "select extra from mini_report order by report_row");
      const extra = typeof first!.extra === "string" ? JSON.parse(first!.extra) : first!.extra;
      expect(extra).toEqual({ new_metric: "0.5", launch_day: "2025-02-01", notes: 'He said "hi"' });
      const columns = await rows(w, "select * from mini_report");
      expect(Object.keys(columns[0]!)).not.toContain("new_metric");
    });

    it("writes all of a part or none of it: a failure in a later batch leaves no rows and the part not done", async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      const p = pipelineFrom(pipelineYaml(true));
      const jobId = await jobFor(w, p);
      await rows(w, "create table mini_report (clicks integer check (clicks < 1000))");
      const lines = Array.from(
        { length: 2500 },
        (_, i) => `2025-03-01,c${i},1%,1,${i === 2100 ? 5000 : 1},1,,n`,
      );
      const big = `Date,Campaign Name,Impression Share %,Spend,Clicks,New Metric,Launch Day,Notes\n${lines.join("\n")}`;
      await expect(load(w, p, jobId, big)).rejects.toThrow();
      expect(await count(w, "mini_report")).toBe(0);
      expect((await jobs(w))[0]).toMatchObject({ parts_loaded: [], rows_loaded: 0 });
    });
  });
});
