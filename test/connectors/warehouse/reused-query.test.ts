import { sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { runReused } from "../../../connectors/warehouse/reused-query.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";

describe.each(WAREHOUSE_KINDS)("a query compiled once per shape on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await sql`create table notes (id integer, label text, source text, twice integer)`.execute(w.db);
      return () => w.close();
    });

    // Each row's id also goes into `twice` (one value, two places); `source` is a constant of the shape.
    const built: string[] = [];
    const insert = (rows: { id: number; label: string }[]) =>
      runReused(
        w.db,
        `notes:${rows.length}`,
        rows.flatMap((r) => [r.id, r.label]),
        (slot) => {
          built.push(`${rows.length} rows`);
          return w.db.insertInto("notes").values(
            rows.map((_, i) => ({
              id: slot(2 * i),
              label: slot(2 * i + 1),
              source: "reused",
              twice: sql`${slot(2 * i)} * 2`,
            })),
          );
        },
      );

    const notes = async () =>
      (
        await sql<Record<string, unknown>>`select id, label, source, twice from notes order by id`.execute(
          w.db,
        )
      ).rows.map((r) => ({ ...r, id: Number(r["id"]), twice: Number(r["twice"]) }));

    it("runs the same shape again with the new values, in their places", async () => {
      await insert([
        { id: 1, label: "one" },
        { id: 2, label: "two" },
      ]);
      await insert([
        { id: 3, label: "three" },
        { id: 4, label: "four" },
      ]);
      await insert([{ id: 5, label: "five" }]);
      // Built and compiled once per shape: the second two-row insert reused the first's.
      expect(built).toEqual(["2 rows", "1 rows"]);
      expect(await notes()).toEqual([
        { id: 1, label: "one", source: "reused", twice: 2 },
        { id: 2, label: "two", source: "reused", twice: 4 },
        { id: 3, label: "three", source: "reused", twice: 6 },
        { id: 4, label: "four", source: "reused", twice: 8 },
        { id: 5, label: "five", source: "reused", twice: 10 },
      ]);
    });

    it("runs inside a transaction, as part of it", async () => {
      await expect(
        w.db.transaction().execute(async (trx) => {
          await runReused(trx, "one-note", [9, "nine"], (slot) =>
            trx.insertInto("notes").values({ id: slot(0), label: slot(1), source: "tx", twice: 0 }),
          );
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      expect(await notes()).toEqual([]);
    });
  });
});
