import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { WatchSpec } from "../../schema/watch.js";
import { addToDayDigest } from "../../store/alert-events.js";
import type { Alert } from "../../store/alerts.js";
import { migrateToLatest } from "../../store/migrate.js";
import { outboxRows } from "../../store/outbox-claim.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const warehouses: Warehouse[] = [];
afterEach(async () => {
  for (const w of warehouses.splice(0)) await w.close();
});

const spec: WatchSpec = {
  table: "patent_legal_status",
  columns: null,
  when: {},
  notify: { url: "env:HOOK", email: [], digest: "day", cooldownMs: null },
  allKeys: true,
};

const alert = (id: string, loadId: number): Alert => ({
  id,
  watch: "w",
  table: "patent_legal_status",
  key: `US${id}`,
  column: "legal_status",
  change: "changed",
  old: "Active",
  new: "Inactive",
  loadId,
  runId: "r1",
  changedAt: "2026-11-29T10:00:00.000Z",
  createdAt: "2026-11-29T10:00:00.000Z",
  suppressed: false,
});

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`a day's digest (${kind})`, () => {
    it("gathers the day's loads in one message due at midnight UTC; a load after it was taken gets its own", async () => {
      const w = await openWarehouse(freshWarehouseUrl(kind));
      warehouses.push(w);
      await migrateToLatest(w);
      const at = new Date("2026-11-29T10:00:00Z");
      await addToDayDigest(w.db, spec, "w", [alert("a1", 1)], at);
      await addToDayDigest(w.db, spec, "w", [alert("a1", 1), alert("a2", 2)], at);
      let rows = await outboxRows(w);
      expect(rows).toHaveLength(1);
      const payload = JSON.parse(String(rows[0]!["payload"])) as {
        count: number;
        day: string;
        alerts: { id: string }[];
      };
      expect(payload).toMatchObject({ count: 2, day: "2026-11-29" });
      expect(payload.alerts.map((a) => a.id)).toEqual(["a1", "a2"]);
      expect(new Date(String(rows[0]!["next_attempt_at"])).toISOString()).toBe("2026-11-30T00:00:00.000Z");
      expect(rows[0]!["run_id"]).toBeNull();
      await w.db.updateTable("skillsync_outbox").set({ attempts: 1 }).execute();
      await addToDayDigest(w.db, spec, "w", [alert("a3", 3)], at);
      rows = await outboxRows(w);
      expect(rows).toHaveLength(2);
      expect(
        (JSON.parse(String(rows[1]!["payload"])) as { alerts: { id: string }[] }).alerts.map((a) => a.id),
      ).toEqual(["a3"]);
    });
  });
}
