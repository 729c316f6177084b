import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { forgetWindows } from "../../../store/windows-done.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { count, duplicates, fast, jobs, ledgerOf, rows, run } from "./helpers.js";

const SIS = "ads-sp-search-impression-share";
const TABLE = "ads_sp_search_impression_share";
const DAYS = { connection: ["5"], start: ["2025-03-01"], end: ["2025-03-03"] };

describe.each(WAREHOUSE_KINDS)("report pipelines by day on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });

    it("one report per day, each once; a rerun creates none; end one day later re-creates the lookback's 3 days and the new one", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 1,
        reportRowsPerPart: 6,
      });
      w = await openWarehouse(freshWarehouseUrl(kind));
      const first = await run(w, client, fast(SIS), DAYS);
      expect(first.status).toBe("succeeded");
      expect(ledgerOf(emulator)).toMatchObject({ creates: 3, downloads: 3, distinctDownloads: 3 });
      const requests = (await jobs(w)).map((j) => j.status);
      expect(requests).toEqual(["done", "done", "done"]);
      expect(await count(w, TABLE)).toBe(18);
      const days = await rows<{ date: unknown }>(w, `select distinct date from ${TABLE} order by date`);
      expect(
        days.map((d) => (d.date instanceof Date ? d.date.toISOString() : String(d.date)).slice(0, 10)),
      ).toEqual(["2025-03-01", "2025-03-02", "2025-03-03"]);

      const again = await run(w, client, fast(SIS), DAYS);
      expect(again.status).toBe("succeeded");
      expect(ledgerOf(emulator).creates).toBe(3);
      expect(emulator.ledger().totalCalls).toBe(ledgerOf(emulator).creates + 3 + 3);

      const later = await run(w, client, fast(SIS), { ...DAYS, end: ["2025-03-04"] });
      expect(later.status).toBe("succeeded");
      // Re-created although each day's report was loaded minutes ago (freshness 12h): the lookback asks again.
      expect(ledgerOf(emulator).creates).toBe(3 + 4);
      // A report asked again replaces its day's rows: 4 days of 6 rows, none twice.
      expect(await count(w, TABLE)).toBe(24);
      expect(await duplicates(w, TABLE)).toBe(0);
    }, 60_000);

    it("a resumed run never re-creates a report it loaded before the kill, even asked again (--refresh)", async () => {
      const { emulator, client } = await emulatorWithClient({ reportPendingPolls: 0, reportParts: 1 });
      w = await openWarehouse(freshWarehouseUrl(kind));
      const opts = { warehouse: w, client, pipelines: [fast(SIS)], params: DAYS, refresh: true };
      const first = await runPipelines(opts);
      expect(first.status).toBe("succeeded");
      expect(ledgerOf(emulator).creates).toBe(3);
      // As a kill after the reports' loads and before their windows were recorded leaves the run.
      await forgetWindows(w.db, SIS);
      await rows(w, `update skillsync_runs set status = 'interrupted' where id = '${first.runId}'`);
      const resumed = await runPipelines(opts);
      expect(resumed).toMatchObject({ runId: first.runId, resumed: true, status: "succeeded" });
      expect(ledgerOf(emulator).creates).toBe(3);
      expect((await rows(w, "select window_start from skillsync_windows order by 1")).length).toBe(3);
      // A new run with --refresh asks every day again.
      await runPipelines(opts);
      expect(ledgerOf(emulator).creates).toBe(6);
    }, 60_000);
  });
});
