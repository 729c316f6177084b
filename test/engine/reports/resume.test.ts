import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { count, DOWNLOAD, duplicates, fast, jobs, ledgerOf, RANGE, run, STATUS, tapped } from "./helpers.js";

const SIS = "ads-sp-search-impression-share";
const TABLE = "ads_sp_search_impression_share";
const PARTS = 3;
const ROWS = 25;

type Stage = "after create" | "while polling" | "between parts";

/** What the job looks like after a stop at each stage, before the resume. */
const LEFT: Record<Stage, { status: string; parts_loaded: number[]; rows: number }> = {
  "after create": { status: "pending", parts_loaded: [], rows: 0 },
  "while polling": { status: "pending", parts_loaded: [], rows: 0 },
  "between parts": { status: "downloading", parts_loaded: [0], rows: ROWS },
};

describe.each(WAREHOUSE_KINDS)("a report run stopped and resumed on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });

    it.each(Object.keys(LEFT) as Stage[])(
      "stopped %s: the resume pays one create in all and downloads no part twice",
      async (stage) => {
        const { emulator, client } = await emulatorWithClient({
          reportPendingPolls: 3,
          reportParts: PARTS,
          reportRowsPerPart: ROWS,
        });
        w = await openWarehouse(freshWarehouseUrl(kind));
        const stop = new AbortController();
        let polls = 0;
        let downloads = 0;
        // Aborting right after an answer is what a kill at that point leaves behind: the answer recorded, nothing after it.
        const caller = tapped(client, (slug) => {
          if (stage === "after create" && slug.endsWith("-report")) stop.abort();
          if (stage === "while polling" && slug === STATUS && ++polls === 2) stop.abort();
          if (stage === "between parts" && slug === DOWNLOAD && ++downloads === 1) stop.abort();
        });
        const params = { connection: ["5"], ...RANGE };
        const first = await run(w, caller, fast(SIS), params, stop.signal);
        expect(first.status).toBe("interrupted");
        const [left] = await jobs(w);
        expect(left).toMatchObject({ status: LEFT[stage].status, parts_loaded: LEFT[stage].parts_loaded });
        expect(left!.report_id).toMatch(/^rpt-/);
        expect(await count(w, TABLE)).toBe(LEFT[stage].rows);

        const second = await run(w, client, fast(SIS), params);
        expect(second.resumed).toBe(true);
        expect(second.status).toBe("succeeded");
        expect(await count(w, TABLE)).toBe(PARTS * ROWS);
        expect(await duplicates(w, TABLE)).toBe(0);
        expect(ledgerOf(emulator)).toMatchObject({ creates: 1, downloads: PARTS, distinctDownloads: PARTS });
        expect((await jobs(w))[0]).toMatchObject({ id: left!.id, status: "done", rows_loaded: PARTS * ROWS });
      },
    );
  });
});
