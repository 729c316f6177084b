import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { type ChildSpec, runChild } from "../child.js";
import { rows } from "../fixtures.js";

const SPEC: ChildSpec = {
  pipelines: ["marketplace-search"],
  params: {
    keyword: [
      "usb hub",
      "desk lamp",
      "yoga mat",
      "phone stand",
      "cable tidy",
      "mouse pad",
      "stool",
      "kettle",
    ],
    pages: ["2"],
  },
  concurrency: 4,
};

const snapshot = (w: Warehouse) =>
  rows(
    w,
    "select keyword, page, item_index, asin, position from marketplace_search_results order by 1, 2, 3",
  );

describe.each(WAREHOUSE_KINDS)("identical runs at once on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("pay for each distinct request once and load the rows of one clean run", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 150, jitterMs: 50 });
      const clean = await openWarehouse(freshWarehouseUrl(kind));
      await runPipelines({
        warehouse: clean,
        client,
        pipelines: SPEC.pipelines.map((p) => loadPipeline(p)),
        params: SPEC.params,
        concurrency: SPEC.concurrency,
      });
      const expected = await snapshot(clean);
      await clean.close();
      emulator.reset();

      const db = freshWarehouseUrl(kind);
      // Migrated first: this test is about the calls (first use at once has its own test).
      const w0 = await openWarehouse(db);
      await migrateToLatest(w0);
      await w0.close();
      const outs = await Promise.all([0, 1, 2].map(() => runChild(db, emulator.url, { spec: SPEC })));
      for (const o of outs) expect(o.output).toContain('"status":"succeeded"');

      const charged = emulator.ledger().calls.filter((c) => c.credits > 0);
      const times = new Map<string, number>();
      for (const c of charged)
        times.set(`${c.slug}:${c.bodyHash}`, (times.get(`${c.slug}:${c.bodyHash}`) ?? 0) + 1);
      expect([...times].filter(([, n]) => n > 1)).toEqual([]);
      expect(times.size).toBe(SPEC.params["keyword"]!.length * 2);

      const w = await openWarehouse(db);
      try {
        expect(await snapshot(w)).toEqual(expected);
        const shared = await rows<{ n: number }>(
          w,
          "select coalesce(sum(calls_shared), 0) as n from skillsync_runs",
        );
        const cached = await rows<{ n: number }>(
          w,
          "select coalesce(sum(calls_cached), 0) as n from skillsync_runs",
        );
        // Every run had every answer: paid by itself, shared while another run's call was in flight, or from the store.
        // Runs that were all going at one moment (each call takes 150-200 ms) took some answers from
        // another run's call; on a busy machine a child may start only after the others ended.
        const spans = await rows<{ started_at: unknown; finished_at: unknown }>(
          w,
          "select started_at, finished_at from skillsync_runs",
        );
        const at = (v: unknown) => Date.parse(String(v));
        const together =
          Math.max(...spans.map((r) => at(r.started_at))) + 1000 <
          Math.min(...spans.map((r) => at(r.finished_at)));
        if (together) expect(Number(shared[0]!.n)).toBeGreaterThan(0);
        expect(Number(shared[0]!.n) + Number(cached[0]!.n) + charged.length).toBe(3 * times.size);
      } finally {
        await w.close();
      }
    }, 60_000);
  });
});
