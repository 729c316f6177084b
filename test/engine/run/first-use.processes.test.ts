import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { allMigrations } from "../../../migrations/index.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { type ChildSpec, runChild } from "../child.js";
import { rows } from "../fixtures.js";

const SPEC: ChildSpec = {
  pipelines: ["marketplace-search"],
  params: { keyword: ["usb hub"] },
  concurrency: 2,
};
// The reliability suite runs 8 at once, several times (test/reliability/concurrent.test.ts).
const PROCESSES = 4;

describe.each(WAREHOUSE_KINDS)("first use of a new warehouse by several processes at once on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it(`all ${PROCESSES} succeed; migrations are recorded once`, async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const outs = await Promise.allSettled(
        Array.from({ length: PROCESSES }, () =>
          runChild(db, emulator.url, { spec: { ...SPEC, startAt: Date.now() + 5000 } }),
        ),
      );
      const failed = outs.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
      expect(failed).toEqual([]);
      const w = await openWarehouse(db);
      try {
        const names = await rows<{ name: string }>(w, "select name from kysely_migration order by name");
        expect(names.map((r) => r.name)).toEqual(Object.keys(allMigrations(w.adapter)));
      } finally {
        await w.close();
      }
    }, 90_000);
  });
});
