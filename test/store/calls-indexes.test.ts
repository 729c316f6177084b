import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { allMigrations } from "../../migrations/index.js";
import { migrateToLatest } from "../../store/migrate.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

/** How the database finds a hash's ledger rows: its plan, as text. */
async function hashLookupPlan(w: Warehouse): Promise<string> {
  const lookup = "select id from skillsync_calls where request_hash = 'a1b2'";
  if (w.target.kind === "sqlite") {
    const r = await sql.raw<{ detail: string }>(`explain query plan ${lookup}`).execute(w.db);
    return r.rows.map((row) => row.detail).join("\n");
  }
  // An empty table is read whole whatever its indexes: asked for the plan an index would give.
  return w.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const r = await sql.raw<{ "QUERY PLAN": string }>(`explain ${lookup}`).execute(trx);
    return r.rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}

/** The ledger's indexes by request hash. */
const hashIndexes = async (w: Warehouse) =>
  [...(await w.adapter.readCatalog(w.db)).indexes].filter((i) => i.startsWith("skillsync_calls_hash")).sort();

describe.each(WAREHOUSE_KINDS)("the ledger's indexes (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "keep one index by request hash, which finds a hash's calls; a warehouse made before loses the other",
    async () => {
      const url = freshWarehouseUrl(kind);
      const w = await openWarehouse(url);
      try {
        await migrateToLatest(w);
        expect(await hashIndexes(w)).toEqual(["skillsync_calls_hash_outcome"]);
        expect(await hashLookupPlan(w)).toContain("skillsync_calls_hash_outcome");

        // As a warehouse of migration 017 has it: the old index, and 018 (nor any later one) not yet applied.
        await sql`create index skillsync_calls_hash on skillsync_calls (request_hash)`.execute(w.db);
        await sql`delete from kysely_migration where name >= '018'`.execute(w.db);
        expect(await hashIndexes(w)).toEqual(["skillsync_calls_hash", "skillsync_calls_hash_outcome"]);
      } finally {
        await w.close();
      }
      const again = await openWarehouse(url);
      try {
        const { applied } = await migrateToLatest(again);
        expect(applied).toEqual(Object.keys(allMigrations(again.adapter)).filter((name) => name >= "018"));
        expect(await hashIndexes(again)).toEqual(["skillsync_calls_hash_outcome"]);
      } finally {
        await again.close();
      }
    },
  );
});
