import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { SkillClient } from "../../../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { responseChunks } from "../../../migrations/004_response_chunks.js";
import { CHUNK_BYTES, setChunkBytes } from "../../../store/chunks.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { freshResponses } from "../../../store/responses.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import {
  count,
  DOWNLOAD,
  duplicates,
  fast,
  ledgerOf,
  RANGE,
  rewind,
  rows,
  run,
  storedBody,
  tapped,
} from "./helpers.js";

const SIS = "ads-sp-search-impression-share";
const TABLE = "ads_sp_search_impression_share";
const ROWS = 5_000;
const PARAMS = { connection: ["5"], ...RANGE };

interface StoredRow {
  request_hash: string;
  request: unknown;
  body: Uint8Array;
  chunks: number;
  run_id: string;
}

async function storedDownloads(w: Warehouse): Promise<StoredRow[]> {
  const list = await rows<StoredRow>(
    w,
    `select request_hash, request, body, chunks, run_id from skillsync_responses
     where skill = '${DOWNLOAD}' order by request_hash`,
  );
  return list.map((r) => ({ ...r, chunks: Number(r.chunks) }));
}

async function piecesOf(w: Warehouse, hash: string): Promise<number[]> {
  const list = await rows<{ seq: number }>(
    w,
    `select seq from skillsync_response_chunks where request_hash = '${hash}' order by seq`,
  );
  return list.map((r) => Number(r.seq));
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The CSV the service gives for a stored download's request, asked again whole. */
async function contentOf(client: SkillClient, request: unknown): Promise<string> {
  const body = (typeof request === "string" ? JSON.parse(request) : request) as {
    connectionId: number;
    documentToken: string;
  };
  const again = await client.send({ slug: DOWNLOAD, body });
  return (again.data as { content: string }).content;
}

describe.each(WAREHOUSE_KINDS)("migration 004 on %s", (kind) => {
  it.skipIf(unavailable(kind))(
    "can be applied again over itself (a half-applied run is retried)",
    async () => {
      const w = await openWarehouse(freshWarehouseUrl(kind));
      try {
        await migrateToLatest(w);
        await responseChunks(w.adapter).up(w.db);
        expect(await rows(w, "select chunks from skillsync_responses")).toEqual([]);
        expect(await rows(w, "select seq from skillsync_response_chunks")).toEqual([]);
      } finally {
        await w.close();
      }
    },
  );
});

describe.each(WAREHOUSE_KINDS)("report parts stored in pieces on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      setChunkBytes(CHUNK_BYTES);
      await w?.close();
      w = undefined;
    });

    /** An emulator with `parts` parts, pieces of `chunkBytes`, and a first run that succeeds. */
    async function firstRun(parts: number, chunkBytes: number) {
      setChunkBytes(chunkBytes);
      const started = await emulatorWithClient({
        reportPendingPolls: 0,
        reportParts: parts,
        reportRowsPerPart: ROWS,
      });
      w = await openWarehouse(freshWarehouseUrl(kind));
      expect((await run(w, started.client, fast(SIS), PARAMS)).status).toBe("succeeded");
      return { ...started, w };
    }

    it("stores a part in several pieces with an empty body, and loads every row once", async () => {
      const { emulator, client, w } = await firstRun(2, 8 * 1024);
      expect(await count(w, TABLE)).toBe(2 * ROWS);
      expect(await duplicates(w, TABLE)).toBe(0);

      const stored = await storedDownloads(w);
      expect(stored).toHaveLength(2);
      for (const r of stored) {
        expect(Buffer.from(r.body).length).toBe(0);
        expect(r.chunks).toBeGreaterThan(2);
        expect(await piecesOf(w, r.request_hash)).toEqual(range(r.chunks));
        // The pieces joined are the answer, byte for byte once decoded.
        const data = JSON.parse(gunzipSync((await storedBody(w, r.request_hash))!).toString("utf8"));
        expect(data.content).toBe(await contentOf(client, r.request));
        // Read as any stored answer is (a pipeline calling the download skill itself would).
        const fresh = (await freshResponses(w.db, [r.request_hash], 0, r.run_id)).get(r.request_hash);
        expect(fresh?.data).toEqual(data);
      }
      expect(ledgerOf(emulator).distinctDownloads).toBe(2);
    });

    it("resumes a stored, not loaded part from its pieces without downloading it again", async () => {
      const { emulator, client, w } = await firstRun(1, 8 * 1024);
      const [before] = await storedDownloads(w);
      expect(before!.chunks).toBeGreaterThan(2);
      await rewind(w, TABLE);

      expect((await run(w, client, fast(SIS), PARAMS)).status).toBe("succeeded");
      expect(await count(w, TABLE)).toBe(ROWS);
      expect(await duplicates(w, TABLE)).toBe(0);
      expect(ledgerOf(emulator).downloads).toBe(1);
      expect(await storedDownloads(w)).toEqual([before]);
    });

    it("a part stored again replaces every piece of the earlier answer", async () => {
      const { emulator, client, w } = await firstRun(1, 4 * 1024);
      const [first] = await storedDownloads(w);

      // Downloaded again (paid twice, as a lost store would): fewer, bigger pieces.
      setChunkBytes(32 * 1024);
      await rewind(w, TABLE, true);
      expect((await run(w, client, fast(SIS), PARAMS)).status).toBe("succeeded");
      const [second] = await storedDownloads(w);
      expect(second!.request_hash).toBe(first!.request_hash);
      expect(second!.chunks).toBeGreaterThan(1);
      expect(second!.chunks).toBeLessThan(first!.chunks);
      expect(await piecesOf(w, second!.request_hash)).toEqual(range(second!.chunks));
      expect(await count(w, TABLE)).toBe(ROWS);

      // Answered whole by a client that does not stream: the body goes in the row, no piece stays.
      await rewind(w, TABLE, true);
      expect(
        (
          await run(
            w,
            tapped(client, () => {}),
            fast(SIS),
            PARAMS,
          )
        ).status,
      ).toBe("succeeded");
      const [third] = await storedDownloads(w);
      expect(Buffer.from(third!.body).length).toBeGreaterThan(0);
      expect(await piecesOf(w, third!.request_hash)).toEqual([]);
      expect(await count(w, TABLE)).toBe(ROWS);
      expect(await duplicates(w, TABLE)).toBe(0);
      expect(ledgerOf(emulator).downloads).toBe(3);
    });

    it("loads a part stored whole in its row, as before pieces existed", async () => {
      const { emulator, client, w } = await firstRun(1, 8 * 1024);
      const [r] = await storedDownloads(w);
      const whole = (await storedBody(w, r!.request_hash))!;
      // What migration 004 finds in a warehouse written before it: the body in the row, 0 pieces.
      await w.db.deleteFrom("skillsync_response_chunks").execute();
      await w.db
        .updateTable("skillsync_responses")
        .set({ body: whole, chunks: 0 })
        .where("request_hash", "=", r!.request_hash)
        .execute();
      await rewind(w, TABLE);

      expect((await run(w, client, fast(SIS), PARAMS)).status).toBe("succeeded");
      expect(await count(w, TABLE)).toBe(ROWS);
      expect(await duplicates(w, TABLE)).toBe(0);
      expect(ledgerOf(emulator).downloads).toBe(1);
    });
  });
});
