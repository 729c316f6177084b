import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startTestServer } from "./helpers.js";

const MIB = 1_048_576;

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`GET /tables/:name pages bounded in bytes on ${kind}`, () => {
    it("stops a page at 1 MiB, cuts cells over 64 KiB, says so, and nextOffset goes on from there", async () => {
      const t = await startTestServer(kind);
      const w = t.warehouse;
      await sql`create table wide (id integer primary key, body text, note text)`.execute(w.db);
      for (let id = 1; id <= 30; id++) {
        const body = id % 3 === 0 ? "s".repeat(10) : String.fromCharCode(96 + (id % 26) + 1).repeat(400_000);
        await sql`insert into wide (id, body, note) values (${id}, ${body}, ${`row ${id}`})`.execute(w.db);
      }
      const ids: number[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page = await t.call("GET", `/tables/wide?limit=5000&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(page.text.length).toBeLessThan(1.1 * MIB);
        if (page.json.nextOffset !== null) {
          expect(page.json).toMatchObject({ truncated: true, truncatedBy: "bytes", total: 30 });
        }
        expect(page.json.cellsCut).toBe(page.json.rows.filter((r: { id: number }) => r.id % 3 !== 0).length);
        for (const r of page.json.rows) {
          ids.push(r.id);
          expect(r.note).toBe(`row ${r.id}`);
          if (r.id % 3 !== 0) expect(r.body).toMatch(/^([a-z])\1+…\[cut: first \d+ of 400000 bytes\]$/);
          else expect(r.body).toBe("ssssssssss");
        }
        offset = page.json.nextOffset;
        pages++;
      }
      expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(pages).toBe(2);

      // A page that fits says truncated: false.
      const small = await t.call("GET", "/tables/wide?limit=2&columns=id,note");
      expect(small.json).toMatchObject({ truncated: false, nextOffset: 2 });
      expect(small.json.cellsCut).toBeUndefined();
    }, 60_000);
  });
}
