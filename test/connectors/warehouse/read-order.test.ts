import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../connectors/warehouse/tables.js";
import { writeRows } from "../../../engine/load/write-rows.js";
import { readRows, stableOrder, tableColumns, uniqueKey } from "../../../engine/publish/read-table.js";
import type { TableDef } from "../../../schema/table.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

// The key is neither the first columns nor in column order: ordering by every column (as pages did
// before) gives a different order than the key's.
const table = (name: string, unique = true): TableDef => ({
  name,
  key: ["region", "id"],
  unique,
  columns: [
    { name: "label", type: "text" },
    { name: "id", type: "integer" },
    { name: "region", type: "text" },
    { name: "extra", type: "json" },
  ],
});

const ROWS = Array.from({ length: 10 }, (_, i) => ({
  label: `label ${9 - i}`,
  id: i % 5,
  region: i < 5 ? "north" : "east",
  extra: { i },
}));

const byKey = [...ROWS]
  .sort((a, b) => a.region.localeCompare(b.region) || a.id - b.id)
  .map((r) => `${r.region}/${r.id}`);

describe.each(WAREHOUSE_KINDS)("reading a table in pages on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    async function made(def: TableDef): Promise<void> {
      await ensureTable(w, def);
      await w.transaction((tx) => writeRows(tx, def, ROWS, def.unique === false ? "append" : "merge"));
    }

    it("finds a pipeline table's key in key order", async () => {
      await made(table("keyed"));
      expect(await uniqueKey(w, "keyed")).toEqual(["region", "id"]);
    });

    it("pages follow the key and hold every row once", async () => {
      await made(table("keyed"));
      const info = await tableColumns(w, "keyed");
      const order = await stableOrder(w, "keyed", info);
      const seen: string[] = [];
      for (let offset = 0; offset < ROWS.length + 3; offset += 3) {
        const page = await readRows(w, "keyed", {
          columns: ["region", "id"],
          orderBy: order,
          limit: 3,
          offset,
        });
        seen.push(...page.map((r) => `${r["region"]}/${r["id"]}`));
      }
      expect(seen).toEqual(byKey);
    });

    it("orders by every column but JSON ones when there is no unique key (append tables, views)", async () => {
      await made(table("appended", false));
      await sql`create view appended_view as select label, region from appended`.execute(w.db);
      const info = await tableColumns(w, "appended", { extra: "json" });
      expect(await uniqueKey(w, "appended")).toEqual([]);
      expect(await stableOrder(w, "appended", info)).toEqual(["label", "id", "region"]);
      expect(await stableOrder(w, "appended_view", await tableColumns(w, "appended_view"))).toEqual([
        "label",
        "region",
      ]);
    });

    it("does not take a partial or expression unique index for a key", async () => {
      await made(table("appended", false));
      await sql`create unique index appended_partial on appended (label) where id > 100`.execute(w.db);
      await sql`create unique index appended_expr on appended (lower(label))`.execute(w.db);
      expect(await uniqueKey(w, "appended")).toEqual([]);
    });
  });
});
