import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TransportError } from "../../../connectors/skill-api/errors.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { streamDownload } from "../../../engine/reports/stream-download.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import {
  count,
  DOWNLOAD,
  duplicates,
  fast,
  jobs,
  ledgerOf,
  RANGE,
  rewind,
  rows,
  run,
  storedBody,
} from "./helpers.js";

const SIS = "ads-sp-search-impression-share";
const TABLE = "ads_sp_search_impression_share";
// Large enough that the part crosses many gzip, file and CSV chunks on its way through the spool.
const ROWS = 30_000;

/** The stored downloads: their request, and their `data` gunzipped (joined from its pieces). */
async function storedDownloads(w: Warehouse) {
  const stored = await rows<{ request_hash: string; request: unknown }>(
    w,
    `select request_hash, request from skillsync_responses where skill = '${DOWNLOAD}'`,
  );
  const out = [];
  for (const r of stored) {
    const body = await storedBody(w, r.request_hash);
    out.push({
      request: (typeof r.request === "string" ? JSON.parse(r.request) : r.request) as {
        connectionId: number;
        documentToken: string;
      },
      data: JSON.parse(gunzipSync(body!).toString("utf8")) as { content: string },
    });
  }
  return out;
}

describe.each(WAREHOUSE_KINDS)("a large report part through the spool file on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    let spools: string;
    let tmp: string | undefined;
    beforeEach(() => {
      // The spool directory goes under TMPDIR: a private one shows what is left behind.
      tmp = process.env["TMPDIR"];
      spools = mkdtempSync(join(tmpdir(), "skillsync-spool-test-"));
      process.env["TMPDIR"] = spools;
    });
    afterEach(async () => {
      if (tmp === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = tmp;
      rmSync(spools, { recursive: true, force: true });
      await w?.close();
      w = undefined;
    });

    it("stores the whole answer before loading, loads every row once, and removes the spool", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 2,
        reportRowsPerPart: ROWS,
      });
      w = await openWarehouse(freshWarehouseUrl(kind));
      const s = await run(w, client, fast(SIS), { connection: ["5"], ...RANGE });
      expect(s.status).toBe("succeeded");
      expect(await count(w, TABLE)).toBe(2 * ROWS);
      expect(await duplicates(w, TABLE)).toBe(0);
      expect((await jobs(w))[0]).toMatchObject({
        status: "done",
        parts_loaded: [0, 1],
        rows_loaded: 2 * ROWS,
      });
      expect(readdirSync(spools).filter((f) => f.startsWith("skillsync-part-"))).toEqual([]);

      // What the store keeps is the answer itself, byte for byte once decoded: the same CSV the
      // service gives when asked again (not streamed), header and every row.
      const stored = await storedDownloads(w);
      expect(stored).toHaveLength(2);
      for (const { request, data } of stored) {
        const again = await client.send({ slug: DOWNLOAD, body: request });
        expect(data.content).toBe((again.data as { content: string }).content);
        expect(parse(data.content)).toHaveLength(ROWS + 1);
      }
      expect(ledgerOf(emulator).distinctDownloads).toBe(2);
    });

    it("loads a part stored by an earlier run from the store, without downloading it again", async () => {
      const { emulator, client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 1,
        reportRowsPerPart: ROWS,
      });
      w = await openWarehouse(freshWarehouseUrl(kind));
      const params = { connection: ["5"], ...RANGE };
      expect((await run(w, client, fast(SIS), params)).status).toBe("succeeded");
      // As a crash between the store and the load leaves it: downloaded, not loaded.
      await rewind(w, TABLE);
      const again = await run(w, client, fast(SIS), params);
      expect(again.status).toBe("succeeded");
      expect(await count(w, TABLE)).toBe(ROWS);
      expect(ledgerOf(emulator).downloads).toBe(1);
      expect(readdirSync(spools).filter((f) => f.startsWith("skillsync-part-"))).toEqual([]);
    });

    it("a spool that cannot be written fails the download as an answer that may have been billed", async () => {
      const { client } = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: 1,
        reportRowsPerPart: 50,
      });
      w = await openWarehouse(freshWarehouseUrl(kind));
      expect((await run(w, client, fast(SIS), { connection: ["5"], ...RANGE })).status).toBe("succeeded");
      const [download] = await storedDownloads(w);
      const err = await streamDownload(
        client.config,
        DOWNLOAD,
        download!.request,
        join(spools, "missing", "part.gz"),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).maybeCharged).toBe(true);
    });
  });
});
