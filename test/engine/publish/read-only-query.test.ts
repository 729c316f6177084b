import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { readOnlyQuery } from "../../../engine/publish/query.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`readOnlyQuery on ${kind}`, () => {
    it("reads, cuts at maxRows and says so, and refuses a write leaving the table as it was", async () => {
      const w = await openWarehouse(freshWarehouseUrl(kind));
      try {
        await sql`create table items (n integer)`.execute(w.db);
        await sql`insert into items (n) values (1), (2), (3)`.execute(w.db);
        expect(await readOnlyQuery(w, "select n from items order by n")).toEqual({
          rows: [{ n: 1 }, { n: 2 }, { n: 3 }],
          truncated: false,
        });
        expect(await readOnlyQuery(w, "select n from items order by n", { maxRows: 2 })).toEqual({
          rows: [{ n: 1 }, { n: 2 }],
          truncated: true,
        });
        for (const write of ["delete from items", "update items set n = 0", "drop table items"]) {
          await expect(readOnlyQuery(w, write), write).rejects.toBeInstanceOf(ValidationError);
        }
        // The session is writable again afterwards: read-only held for the query alone.
        await sql`insert into items (n) values (4)`.execute(w.db);
        const { rows } = await readOnlyQuery(w, "select count(*) as n from items");
        expect(Number(rows[0]?.["n"])).toBe(4);
      } finally {
        await w.close();
      }
    });
  });
}
