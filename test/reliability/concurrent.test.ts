import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { allMigrations } from "../../migrations/index.js";
import { runChild } from "./support/child.js";
import type { ChildSpec } from "./support/child-spec.js";
import { suiteEmulator } from "./support/emulator.js";
import { paidTwice } from "./support/ledger.js";
import { envCount } from "./support/prng.js";
import { rows } from "./support/snapshot.js";
import { addFigures } from "./support/suite.js";
import { KINDS, suiteWarehouse, unavailable } from "./support/warehouses.js";

// Identical runs started together on one warehouse (a team pressing Run at once, a schedule
// overlapping a manual run, several workers): each distinct request is paid once, whichever run
// sends it, and the tables hold the rows of one clean run. And first use of a new warehouse by
// many processes at once: all succeed.
const TRIALS = envCount("RELIABILITY_CONCURRENT_TRIALS", 3);
const RUNS_AT_ONCE = 5;
const FIRST_USE_PROCESSES = 8;
const KEYWORDS = Array.from({ length: 12 }, (_, i) => `concurrent keyword ${i}`);
const PAGES = 3;

const snapshot = (w: Warehouse) =>
  rows(
    w,
    "select keyword, page, item_index, asin, position from marketplace_search_results order by 1, 2, 3",
  );

async function readWarehouse<T>(db: string, fn: (w: Warehouse) => Promise<T>): Promise<T> {
  const w = await openWarehouse(db);
  try {
    return await fn(w);
  } finally {
    await w.close();
  }
}

describe.each(KINDS)("concurrent runs on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it(`${RUNS_AT_ONCE} identical runs at once pay each request once, ${TRIALS} trials`, async () => {
      const emulator = await suiteEmulator({ latencyMs: 60, jitterMs: 60 });
      try {
        const spec = (db: string): ChildSpec => ({
          db,
          baseUrl: emulator.url,
          pipelines: ["marketplace-search"],
          params: { keyword: KEYWORDS, pages: [String(PAGES)] },
          concurrency: 4,
        });
        const clean = suiteWarehouse(kind, "concurrent_clean");
        expect((await runChild(spec(clean))).summary?.status).toBe("succeeded");
        const expected = await readWarehouse(clean, snapshot);
        let requests = 0;
        let doublePaid = 0;
        let shared = 0;
        for (let t = 0; t < TRIALS; t++) {
          emulator.reset();
          const db = suiteWarehouse(kind, "concurrent");
          const startAt = Date.now() + 4000;
          const outs = await Promise.all(
            Array.from({ length: RUNS_AT_ONCE }, () => runChild({ ...spec(db), startAt })),
          );
          expect(outs.map((o) => o.summary?.status ?? o.stderr)).toEqual(outs.map(() => "succeeded"));
          const calls = emulator.ledger().calls;
          const twice = paidTwice(calls).paidTwice;
          requests += calls.filter((c) => c.credits > 0).length;
          doublePaid += twice.reduce((s, e) => s + e.times - 1, 0);
          shared += outs.reduce((s, o) => s + (o.summary?.shared ?? 0), 0);
          expect(twice, `trial ${t}: requests paid twice`).toEqual([]);
          expect(await readWarehouse(db, snapshot)).toEqual(expected);
        }
        addFigures("concurrent", {
          [`trials_${kind}`]: TRIALS,
          runs: TRIALS * RUNS_AT_ONCE,
          requests_paid: requests,
          double_paid: doublePaid,
          answers_shared: shared,
        });
      } finally {
        await emulator.stop();
      }
    });

    it(`${FIRST_USE_PROCESSES} processes on a new warehouse at once all succeed, ${TRIALS} trials`, async () => {
      const emulator = await suiteEmulator();
      let failed = 0;
      try {
        for (let t = 0; t < TRIALS; t++) {
          const db = suiteWarehouse(kind, "first_use");
          const startAt = Date.now() + 5000;
          const outs = await Promise.all(
            Array.from({ length: FIRST_USE_PROCESSES }, () =>
              runChild({
                db,
                baseUrl: emulator.url,
                pipelines: ["marketplace-search"],
                params: { keyword: ["first use"] },
                concurrency: 2,
                startAt,
              }),
            ),
          );
          const errors = outs.filter((o) => o.summary?.status !== "succeeded").map((o) => o.stderr);
          failed += errors.length;
          expect(errors, `trial ${t}`).toEqual([]);
          const [names, all] = await readWarehouse(db, async (w) => [
            (await rows<{ name: string }>(w, "select name from kysely_migration order by name")).map(
              (r) => r.name,
            ),
            Object.keys(allMigrations(w.adapter)),
          ]);
          expect(names).toEqual(all);
        }
      } finally {
        addFigures("concurrent", {
          first_use_processes: TRIALS * FIRST_USE_PROCESSES,
          first_use_failed: failed,
        });
        await emulator.stop();
      }
    });
  });
});
