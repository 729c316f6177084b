import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { pushFromWarehouse } from "../../../engine/publish/sheets-push.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { sheetsFakes } from "./helpers.js";

const fakes = sheetsFakes();
afterEach(() => fakes.stop());

// 2^53 + 1 and friends: a double holds none of them exactly.
const BIG = ["9007199254740993", "-9007199254740993", "9223372036854775807"];

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`integers past 2^53 from ${kind}`, () => {
    it("arrive with every digit (as text), small integers and flags as numbers and booleans", async () => {
      const fake = await fakes.start();
      fake.createSpreadsheet("x");
      const sheets = await fakes.connector(fake);
      const w = await openWarehouse(freshWarehouseUrl(kind));
      try {
        // SQLite keeps flags as 0/1 integers (the pipeline's types say boolean); Postgres has booleans.
        const [big, flag] = kind === "sqlite" ? ["integer", "integer"] : ["bigint", "boolean"];
        await sql
          .raw(`create table ids (n integer primary key, id ${big} not null, flag ${flag}, price real)`)
          .execute(w.db);
        await sql
          .raw(
            `insert into ids values (1, ${BIG[0]}, true, 1.5), (2, ${BIG[1]}, false, 2), (3, ${BIG[2]}, null, null), (4, 42, true, 0.25)`,
          )
          .execute(w.db);
        await pushFromWarehouse(
          sheets,
          w,
          { table: "ids", types: { flag: "boolean" } },
          { spreadsheet: "x", tab: "T" },
        );
        expect(fake.values("x", "T")).toEqual([
          ["n", "id", "flag", "price"],
          [1, BIG[0], true, 1.5],
          [2, BIG[1], false, 2],
          [3, BIG[2]],
          [4, 42, true, 0.25],
        ]);

        await pushFromWarehouse(
          sheets,
          w,
          { sql: "select id from ids order by n" },
          { spreadsheet: "x", tab: "Q" },
        );
        expect(fake.values("x", "Q")).toEqual([["id"], [BIG[0]], [BIG[1]], [BIG[2]], [42]]);
      } finally {
        await w.close();
      }
    });
  });
}
