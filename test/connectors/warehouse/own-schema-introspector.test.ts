import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";

describe.skipIf(unavailable("postgres"))("introspection of a Postgres warehouse", () => {
  it("sees the warehouse's own schema only, with its columns", async () => {
    const mine = await openWarehouse(freshWarehouseUrl("postgres"));
    const other = await openWarehouse(freshWarehouseUrl("postgres"));
    try {
      await sql`create table t_mine (id serial primary key, note text not null)`.execute(mine.db);
      await sql`create view v_mine as select id from t_mine`.execute(mine.db);
      await sql`create table t_other (id integer)`.execute(other.db);
      const tables = await mine.db.introspection.getTables();
      expect(tables.map((t) => [t.name, t.isView])).toEqual([
        ["t_mine", false],
        ["v_mine", true],
      ]);
      expect(tables[0]!.columns).toEqual([
        expect.objectContaining({
          name: "id",
          dataType: "int4",
          isAutoIncrementing: true,
          isNullable: false,
        }),
        expect.objectContaining({
          name: "note",
          dataType: "text",
          isAutoIncrementing: false,
          isNullable: false,
        }),
      ]);
      expect((await other.db.introspection.getTables()).map((t) => t.name)).toEqual(["t_other"]);
    } finally {
      await mine.close();
      await other.close();
    }
  });
});
