import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { migrateToLatest } from "../../store/migrate.js";
import { claimSignature, pruneSignatures } from "../../store/request-signatures.js";
import { afterTest } from "../helpers/after-test.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const SIGNATURE = "ab".repeat(32);
const at = (s: string) => new Date(`2026-11-29T${s}Z`);

async function opened(url: string): Promise<Warehouse> {
  const w = await openWarehouse(url);
  afterTest(() => w.close());
  await migrateToLatest(w);
  return w;
}

const stored = async (w: Warehouse) =>
  (await w.db.selectFrom("skillsync_request_signatures").selectAll().orderBy("signature").execute()).map(
    (r) => String(r["signature"]),
  );

describe.each(WAREHOUSE_KINDS)("request signature records (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "a signature is claimed once per warehouse, whatever its case and whichever connection asks",
    async () => {
      const url = freshWarehouseUrl(kind);
      const one = await opened(url);
      const two = await opened(url);
      expect(await claimSignature(one.db, SIGNATURE, at("10:05:01"))).toBe(true);
      expect(await claimSignature(one.db, SIGNATURE, at("10:05:01"))).toBe(false);
      expect(await claimSignature(two.db, SIGNATURE.toUpperCase(), at("10:05:01"))).toBe(false);
      // Claimed at the same moment through two connections: exactly one wins.
      const other = "cd".repeat(32);
      const both = await Promise.all([
        claimSignature(one.db, other, at("10:05:01")),
        claimSignature(two.db, other, at("10:05:01")),
      ]);
      expect(both.sort()).toEqual([false, true]);
      // Kept as a SHA-256, never as the signature that was sent.
      const keys = await stored(one);
      expect(keys).toHaveLength(2);
      for (const k of keys) expect(k).toMatch(/^[0-9a-f]{64}$/);
      expect(keys).not.toContain(SIGNATURE);
      expect(keys).not.toContain(other);
    },
  );

  it.skipIf(unavailable(kind))(
    "pruning deletes the records expired before the cutoff, and only those",
    async () => {
      const w = await opened(freshWarehouseUrl(kind));
      const early = "01".repeat(32);
      const late = "02".repeat(32);
      await claimSignature(w.db, early, at("10:00:00"));
      await claimSignature(w.db, late, at("10:10:00"));
      expect(await pruneSignatures(w.db, at("10:00:00"))).toBe(0);
      expect(await pruneSignatures(w.db, at("10:05:00"))).toBe(1);
      expect(await stored(w)).toHaveLength(1);
      expect(await claimSignature(w.db, late, at("10:10:00"))).toBe(false);
      expect(await claimSignature(w.db, early, at("10:00:00"))).toBe(true);
    },
  );
});
