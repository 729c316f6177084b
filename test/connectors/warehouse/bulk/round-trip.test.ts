import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../../connectors/warehouse/tables.js";
import { writeRows } from "../../../../engine/load/write-rows.js";
import { readRows, typedValue } from "../../../../engine/publish/read-table.js";
import type { TableDef } from "../../../../schema/table.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";

const TEXTS = [
  "plain",
  "",
  "a,b",
  'say "hi"',
  '"',
  ",",
  '",\n"',
  "line1\nline2",
  "crlf\r\nend",
  "back\\slash",
  "\\.",
  "a\n\\.\nb",
  "\\N",
  "NULL",
  "  padded  ",
  "tab\there",
  "ünïcødé ✓ 日本語 🚀",
];

const def = (name: string, unique = true): TableDef => ({
  name,
  key: ["id"],
  unique,
  columns: [
    { name: "id", type: "integer" },
    { name: "t", type: "text" },
    { name: "j", type: "json" },
    { name: "b", type: "boolean" },
    { name: "n", type: "number" },
    { name: "m", type: "decimal" },
    { name: "big", type: "integer" },
    { name: "d", type: "date" },
    { name: "ts", type: "timestamp" },
  ],
});

/** One row per tricky text, with tricky values in every other type, and a row of NULLs. */
function trickyRows(): Record<string, unknown>[] {
  const numbers = [0.1, -1.5e-10, 1e21, 123456.789, 0, -7];
  // Money as a decimal keeps every digit it was given, cents and tiny fractions alike.
  const money = [19.99, 0.01, 1234567.89, -0.3, 1e-7, 100];
  const rows: Record<string, unknown>[] = TEXTS.map((t, i) => ({
    id: i + 1,
    t,
    j: i % 3 === 0 ? { s: t, n: i, list: [t, null, true, 2.5], nested: { 'k,"': t } } : i % 3 === 1 ? [t] : t,
    b: i % 2 === 0,
    n: numbers[i % numbers.length],
    m: money[i % money.length],
    big: i % 2 ? 9_007_199_254_740_991 : -42,
    d: `2024-02-${String((i % 28) + 1).padStart(2, "0")}`,
    ts: new Date(Date.UTC(2024, 1, 29, 23, 59, 58, i)).toISOString(),
  }));
  rows.push({ id: 100, t: null, j: null, b: null, n: null, m: null, big: null, d: null, ts: null });
  return rows;
}

async function readBack(w: Warehouse, table: TableDef): Promise<Record<string, unknown>[]> {
  const got = await readRows(w, table.name, { columns: table.columns.map((c) => c.name), orderBy: ["id"] });
  return got.map((r) =>
    Object.fromEntries(table.columns.map((c) => [c.name, typedValue(r[c.name], c.type)])),
  );
}

describe.each(WAREHOUSE_KINDS)("bulk writes on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    it.each([
      ["append", false],
      ["merge", true],
    ] as const)("round-trips tricky values exactly (%s path)", async (mode, unique) => {
      const t = def(`tricky_${mode}`, unique);
      await ensureTable(w, t);
      const rows = trickyRows();
      const n = await w.transaction((tx) => writeRows(tx, t, rows, mode));
      expect(n).toBe(rows.length);
      const back = await readBack(w, t);
      expect(back).toEqual(rows);
      // Empty string and NULL stay apart.
      expect(back.find((r) => r["id"] === 2)?.["t"]).toBe("");
      expect(back.find((r) => r["id"] === 100)?.["t"]).toBeNull();
    });

    it("keeps the last row of a key seen twice in one batch, and counts distinct keys", async () => {
      const t = def("dupes");
      await ensureTable(w, t);
      const batch = [
        { id: 1, t: "first" },
        { id: 2, t: "only" },
        { id: 1, t: "second" },
        { id: 3, t: "x" },
        { id: 1, t: "last" },
      ];
      const n = await w.transaction((tx) => writeRows(tx, t, batch, "merge"));
      expect(n).toBe(3);
      const back = await readBack(w, t);
      expect(back.map((r) => [r["id"], r["t"]])).toEqual([
        [1, "last"],
        [2, "only"],
        [3, "x"],
      ]);
    });

    it("merges: updates rows with known keys, inserts new ones, leaves others; two batches in one transaction", async () => {
      const t = def("merged");
      await ensureTable(w, t);
      await w.transaction((tx) =>
        writeRows(
          tx,
          t,
          [1, 2, 3].map((id) => ({ id, t: `old ${id}`, b: false })),
          "merge",
        ),
      );
      await w.transaction(async (tx) => {
        await writeRows(tx, t, [{ id: 2, t: "new 2", b: true }], "merge");
        // Same table again in the same transaction: the staging table is reused, not doubled.
        await writeRows(
          tx,
          t,
          [
            { id: 3, t: "new 3", b: true },
            { id: 4, t: "new 4", b: null },
          ],
          "merge",
        );
      });
      const back = await readBack(w, t);
      expect(back.map((r) => [r["id"], r["t"], r["b"]])).toEqual([
        [1, "old 1", false],
        [2, "new 2", true],
        [3, "new 3", true],
        [4, "new 4", null],
      ]);
    });

    it("a batch never carries rows of an earlier transaction (staging is emptied at commit)", async () => {
      const t = def("staged");
      await ensureTable(w, t);
      await w.transaction((tx) => writeRows(tx, t, [{ id: 1, t: "a" }], "merge"));
      await w.db.updateTable(t.name).set({ t: "changed" }).where("id", "=", 1).execute();
      for (let i = 2; i < 5; i++) {
        await w.transaction((tx) => writeRows(tx, t, [{ id: i, t: "b" }], "merge"));
      }
      expect((await readBack(w, t)).map((r) => [r["id"], r["t"]])).toEqual([
        [1, "changed"],
        [2, "b"],
        [3, "b"],
        [4, "b"],
      ]);
    });

    it("append keeps every row; replace upserts on the key", async () => {
      const a = def("appended", false);
      const r = def("replaced");
      await ensureTable(w, a);
      await ensureTable(w, r);
      const batch = [
        { id: 1, t: "a" },
        { id: 1, t: "b" },
      ];
      for (let i = 0; i < 2; i++) {
        await w.transaction(async (tx) => {
          expect(await writeRows(tx, a, batch, "append")).toBe(2);
          expect(await writeRows(tx, r, batch, "replace")).toBe(1);
        });
      }
      expect((await readBack(w, a)).map((x) => x["t"])).toEqual(["a", "b", "a", "b"]);
      expect((await readBack(w, r)).map((x) => x["t"])).toEqual(["b"]);
    });

    it("bulk rows and Kysely statements share one transaction: both roll back together", async () => {
      const t = def("atomic");
      await ensureTable(w, t);
      await expect(
        w.transaction(async (tx) => {
          await writeRows(tx, t, [{ id: 1, t: "x" }], "merge");
          const inside = await tx.db.selectFrom(t.name).select("t").execute();
          expect(inside).toEqual([{ t: "x" }]);
          await tx.db.insertInto(t.name).values({ id: 2, t: "via kysely" }).execute();
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await readBack(w, t)).toEqual([]);
      // The connection is usable afterwards.
      await w.transaction((tx) => writeRows(tx, t, [{ id: 5, t: "after" }], "merge"));
      expect((await readBack(w, t)).map((x) => x["id"])).toEqual([5]);
    });

    it.each([
      ["a duplicate of a unique key", { id: 9, t: "again" }],
      ["a text that is no date", { id: 1, d: "not a date" }],
    ])("%s fails the write and rolls the whole transaction back", async (what, bad) => {
      // SQLite keeps any text in a date (text) column: only the key violation applies there.
      if (kind === "sqlite" && what.includes("date")) return;
      const t = def("refused");
      await ensureTable(w, t);
      await expect(
        w.transaction(async (tx) => {
          await tx.db.insertInto(t.name).values({ id: 9, t: "kysely" }).execute();
          await writeRows(tx, t, [{ id: 5, t: "fine" }, bad, { id: 6 }], "append");
        }),
      ).rejects.toThrow();
      expect(await readBack(w, t)).toEqual([]);
      const ok = await w.transaction((tx) => writeRows(tx, t, [{ id: 1, t: "fine" }], "append"));
      expect(ok).toBe(1);
    });

    it.skipIf(kind !== "sqlite")("prepares each statement once per table shape, across batches", async () => {
      const t = def("prepared");
      await ensureTable(w, t);
      if (w.raw.kind !== "sqlite") throw new Error("sqlite expected");
      const database = w.raw.database;
      const original = database.prepare.bind(database);
      const inserts: string[] = [];
      database.prepare = ((text: string) => {
        if (text.startsWith(`insert into "${t.name}"`)) inserts.push(text);
        return original(text);
      }) as typeof database.prepare;
      for (let i = 0; i < 3; i++) {
        await w.transaction((tx) => writeRows(tx, t, [{ id: i, t: `v${i}` }], "merge"));
      }
      expect(inserts).toHaveLength(1);
      expect(await sql`select count(*) as n from prepared`.execute(w.db)).toMatchObject({
        rows: [{ n: 3 }],
      });
    });
  });
});
