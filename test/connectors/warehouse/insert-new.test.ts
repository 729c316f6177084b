import { beforeEach, describe, expect, it } from "vitest";
import { adapterOf, type NewRows } from "../../../connectors/warehouse/adapter.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../connectors/warehouse/tables.js";
import type { TableDef } from "../../../schema/table.js";
import { rows } from "../../engine/fixtures.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

const DEF: TableDef = {
  name: "new_rows",
  key: ["id"],
  unique: true,
  columns: [
    { name: "id", type: "text" },
    { name: "n", type: "integer" },
    { name: "at", type: "timestamp" },
    { name: "ok", type: "boolean" },
    { name: "doc", type: "json" },
  ],
};

const row = (id: string, n: number) => [id, n, "2026-11-08T06:00:00.000Z", n % 2 === 0, { n, tags: ["a"] }];

describe.each(WAREHOUSE_KINDS)("insertNew on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await ensureTable(w, DEF);
      return () => w.close();
    });

    const insert = (list: unknown[][]) =>
      w.transaction((tx) =>
        adapterOf(tx.db).insertNew(tx.db, {
          table: DEF.name,
          columns: DEF.columns,
          rows: list,
          unique: "id",
        }),
      );
    const stored = () =>
      rows<{ id: string; n: number; ok: unknown; doc: unknown }>(
        w,
        "select id, n, ok, doc from new_rows order by id",
      );

    it("inserts the rows whose unique value is new, says which, and leaves the others as they were", async () => {
      expect(await insert([row("a", 1), row("b", 2), row("a", 3)])).toEqual(["a", "b"]);
      expect((await insert([row("b", 20), row("c", 30), ["d", 4, null, null, null]])).sort()).toEqual([
        "c",
        "d",
      ]);
      const all = await stored();
      expect(all.map((r) => [r.id, Number(r.n)])).toEqual([
        ["a", 1],
        ["b", 2],
        ["c", 30],
        ["d", 4],
      ]);
      // Values bound as their types: booleans, JSON and nulls read back as the bulk writer's.
      expect([true, 1]).toContain(all[1]!.ok);
      expect([false, 0]).toContain(all[0]!.ok);
      const doc = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
      expect(doc(all[2]!.doc)).toEqual({ n: 30, tags: ["a"] });
      expect(all[3]!.doc).toBeNull();
    });

    it("writes more rows than one statement takes, and nothing when its transaction rolls back", async () => {
      const many = Array.from({ length: 12_345 }, (_, i) => row(`k${String(i).padStart(5, "0")}`, i));
      expect(await insert(many)).toHaveLength(12_345);
      const more: NewRows["rows"] = [row("k00000", -1), row("zz", 1)];
      await expect(
        w.transaction(async (tx) => {
          await adapterOf(tx.db).insertNew(tx.db, {
            table: DEF.name,
            columns: DEF.columns,
            rows: more,
            unique: "id",
          });
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      const [count] = await rows<{ n: unknown }>(w, "select count(*) as n from new_rows");
      expect(Number(count!.n)).toBe(12_345);
    });
  });
});
