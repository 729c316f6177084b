import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import type { ReadMeasure } from "../../../connectors/warehouse/read-cap.js";
import { closeReadOnly } from "../../../connectors/warehouse/read-only.js";
import { ValidationError } from "../../../core/errors.js";
import { ANSWER_BOUNDS, ANSWER_MAX_BYTES, CELL_MAX_BYTES } from "../../../engine/publish/answer-bounds.js";
import { describeTable } from "../../../engine/publish/describe-table.js";
import { readOnlyQuery } from "../../../engine/publish/query.js";
import { readRows, tableColumns } from "../../../engine/publish/read-table.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";

const MARK = /…\[cut: first (\d+) of (\d+) bytes(, base64)?\]$/;

/** A thousand rows of a megabyte of text and half a megabyte of bytes each, made by the database. */
const HOSTILE = {
  sqlite:
    "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000) " +
    "select i, printf('%.*c', 1000000, 'x') as t, randomblob(500000) as b from n",
  postgres:
    "select i, repeat('x', 1000000) as t, decode(repeat('ab', 500000), 'hex') as b from generate_series(1, 1000) i",
};

const KINDS = [
  { name: "a SQLite file (the reader process)", kind: "sqlite" as const, memory: false },
  { name: "in-memory SQLite", kind: "sqlite" as const, memory: true },
  { name: "Postgres (a cursor)", kind: "postgres" as const, memory: false },
];

for (const k of KINDS) {
  describe.skipIf(unavailable(k.kind))(`answers bounded in bytes on ${k.name}`, () => {
    async function warehouse(): Promise<Warehouse> {
      const w = await openWarehouse(k.memory ? ":memory:" : freshWarehouseUrl(k.kind));
      await migrateToLatest(w);
      return w;
    }

    it("stops a hostile query at the answer's bytes, cuts and marks its cells, and says why", async () => {
      const w = await warehouse();
      try {
        const started = Date.now();
        const r = await readOnlyQuery(w, HOSTILE[k.kind], { maxRows: 1000, ...ANSWER_BOUNDS });
        expect(Date.now() - started).toBeLessThan(20_000);
        expect(r.truncated).toBe(true);
        expect(r.truncation?.truncatedBy).toBe("bytes");
        expect(r.rows.length).toBeGreaterThan(2);
        expect(r.rows.length).toBeLessThan(20);
        expect(r.truncation?.cellsCut).toBe(r.rows.length * 2);
        expect(Buffer.byteLength(JSON.stringify(r.rows))).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
        const first = r.rows[0]!;
        expect(Number(first["i"])).toBe(1);
        const [, kept, whole] = MARK.exec(first["t"] as string)!;
        expect([Number(whole), first["t"] as string]).toEqual([1_000_000, expect.stringMatching(/^x+…/)]);
        expect(Number(kept)).toBeLessThanOrEqual(CELL_MAX_BYTES);
        expect(MARK.exec(first["b"] as string)?.slice(2)).toEqual(["500000", ", base64"]);

        // Rows only: the same statement within maxRows says so.
        const few = await readOnlyQuery(w, HOSTILE[k.kind], { maxRows: 2, ...ANSWER_BOUNDS });
        expect(few).toMatchObject({ truncated: true, truncation: { truncatedBy: "rows", cellsCut: 4 } });
        expect(few.rows).toHaveLength(2);

        // Without bounds nothing changes: `skillsync sql` prints what it always did.
        const plain = await readOnlyQuery(w, "select 'y' as a union all select 'z'");
        expect(plain).toEqual({ rows: [{ a: "y" }, { a: "z" }], truncated: false });
      } finally {
        await w.close();
        await closeReadOnly();
      }
    }, 60_000);

    it("cuts the cells of table pages and of describe's example row, and pages go on past a cut", async () => {
      const w = await warehouse();
      try {
        await sql`create table wide (id integer primary key, body text)`.execute(w.db);
        const big = "w".repeat(300_000);
        for (let id = 1; id <= 24; id++) {
          await sql`insert into wide (id, body) values (${id}, ${id === 1 ? "short" : big})`.execute(w.db);
        }
        const d = await describeTable(w, "wide", { example: true });
        expect(d?.example).toEqual({ id: 1, body: "short" });
        expect(d?.exampleNote).toBeUndefined();

        const info = await tableColumns(w, "wide");
        const seen: number[] = [];
        let pages = 0;
        let measure: ReadMeasure | undefined;
        for (let offset = 0; offset < 24; pages++) {
          const rows = await readRows(w, "wide", {
            columns: info.map((c) => c.name),
            orderBy: ["id"],
            limit: 5000,
            offset,
            ...ANSWER_BOUNDS,
            onMeasure: (m) => (measure = m),
          });
          expect(rows.length).toBeGreaterThan(0);
          expect(Buffer.byteLength(JSON.stringify(rows))).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
          for (const r of rows) {
            seen.push(Number(r["id"]));
            if (r["id"] !== 1) expect(r["body"]).toMatch(/^w+…\[cut: first \d+ of 300000 bytes\]$/);
          }
          offset += rows.length;
        }
        expect(seen).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
        expect(pages).toBeGreaterThan(1);
        expect(measure?.stoppedBy).toBeUndefined(); // the last page held the rest

        await sql`delete from wide where id = 1`.execute(w.db);
        const cut = await describeTable(w, "wide", { example: true });
        expect(cut?.example?.["body"]).toMatch(MARK);
        expect(cut?.exampleNote).toMatch(/1 cell\(s\) longer than 65,536 bytes were cut/);
      } finally {
        await w.close();
        await closeReadOnly();
      }
    }, 60_000);

    it("leaves a data-modifying CTE to the database, which refuses it", async () => {
      const w = await warehouse();
      try {
        await sql`create table items (n integer)`.execute(w.db);
        await sql`insert into items (n) values (1), (2)`.execute(w.db);
        await expect(
          readOnlyQuery(w, "with d as (delete from items returning *) select * from d"),
        ).rejects.toBeInstanceOf(ValidationError);
        const { rows } = await readOnlyQuery(w, "select count(*) as n from items");
        expect(Number(rows[0]?.["n"])).toBe(2);
      } finally {
        await w.close();
        await closeReadOnly();
      }
    });
  });
}
