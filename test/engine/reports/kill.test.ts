import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import type { Emulator } from "../../../emulator/index.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { nodeEntry } from "../../helpers/node-entry.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { count, duplicates, fast, jobs, ledgerOf, RANGE, run } from "./helpers.js";

/** Runs the report in a child process and SIGKILLs it once the emulator has answered `polls` status polls. */
function killMidPoll(db: string, emulator: Emulator, polls: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      nodeEntry("test/engine/reports/report-child.ts", db, emulator.url, DEMO_KEY),
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    p.stderr.on("data", (d) => {
      err += String(d);
    });
    const watch = setInterval(() => {
      if (ledgerOf(emulator).polls >= polls) p.kill("SIGKILL");
    }, 5);
    p.on("exit", (code, signal) => {
      clearInterval(watch);
      if (signal === "SIGKILL") resolve("killed");
      else reject(new Error(`child exited ${code} before the kill: ${err}`));
    });
  });
}

describe.each(WAREHOUSE_KINDS)("kill -9 while polling a report on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("the next run resumes the same report: one create paid, every part loaded once", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 8,
        reportParts: 2,
        reportRowsPerPart: 30,
      });
      const db = freshWarehouseUrl(kind);
      expect(await killMidPoll(db, emulator, 2)).toBe("killed");
      const before = ledgerOf(emulator);
      expect(before.creates).toBe(1);
      expect(before.downloads).toBe(0);

      const w = await openWarehouse(db);
      try {
        const [job] = await jobs(w);
        expect(job).toMatchObject({ status: "pending" });
        expect(job!.report_id).toMatch(/^rpt-/);
        const s = await run(w, client, fast("ads-sp-search-impression-share"), {
          connection: ["5"],
          ...RANGE,
        });
        expect(s.resumed).toBe(true);
        expect(s.status).toBe("succeeded");
        expect(ledgerOf(emulator)).toMatchObject({ creates: 1, downloads: 2, distinctDownloads: 2 });
        expect(await count(w, "ads_sp_search_impression_share")).toBe(60);
        expect(await duplicates(w, "ads_sp_search_impression_share")).toBe(0);
        expect((await jobs(w)).map((j) => [j.id, j.status])).toEqual([[job!.id, "done"]]);
      } finally {
        await w.close();
      }
    }, 60_000);
  });
});
