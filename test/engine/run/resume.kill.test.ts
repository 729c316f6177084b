import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { canonicalJson } from "../../../emulator/index.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { runChild } from "../child.js";
import { CRASH_PARAMS, CRASH_PIPELINES } from "../crash-plan.js";
import { rows } from "../fixtures.js";

const snapshot = async (w: Warehouse) => ({
  market: await rows(
    w,
    "select keyword, page, item_index, asin, position from marketplace_search_results order by 1, 2, 3",
  ),
  search: await rows(w, "select query, publication_number from patent_search_results order by 1, 2"),
  bib: await rows(w, "select publication_number, title from patent_bibliography order by 1"),
  applicants: await rows(w, "select publication_number, position, name from patent_applicants order by 1, 2"),
  legal: await rows(w, "select publication_number, legal_status from patent_legal_status order by 1"),
  events: await rows(
    w,
    "select publication_number, position, event_code from patent_legal_events order by 1, 2",
  ),
});

/** The requests (as the emulator hashes them) of the calls a killed process left in flight. */
async function interruptedRequests(w: Warehouse): Promise<Set<string>> {
  const list = await rows<{ skill: string; request: unknown }>(
    w,
    `select r.skill, r.request from skillsync_calls c join skillsync_responses r on r.request_hash = c.request_hash
     where c.outcome = 'interrupted'`,
  );
  return new Set(
    list.map((r) => {
      const body = typeof r.request === "string" ? JSON.parse(r.request) : r.request;
      return `${r.skill}:${createHash("sha256").update(canonicalJson(body)).digest("hex")}`;
    }),
  );
}

describe.each(WAREHOUSE_KINDS)("resume after kill -9 on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("finishes the work with no duplicate rows, nothing paid twice and nothing lost", async () => {
      const { emulator, client } = await emulatorWithClient({ latencyMs: 15, jitterMs: 20 });
      const clean = await openWarehouse(freshWarehouseUrl(kind));
      await runPipelines({
        warehouse: clean,
        client,
        pipelines: CRASH_PIPELINES.map((p) => loadPipeline(p)),
        params: CRASH_PARAMS,
        concurrency: 4,
      });
      const expected = await snapshot(clean);
      await clean.close();

      for (const afterMs of [40, 150, 300]) {
        emulator.reset();
        const db = freshWarehouseUrl(kind);
        expect((await runChild(db, emulator.url, { killAfterMs: afterMs })).outcome).toBe("killed");
        expect((await runChild(db, emulator.url)).outcome).toBe("finished");
        const w = await openWarehouse(db);
        let inFlight: Set<string>;
        try {
          expect(await snapshot(w)).toEqual(expected);
          const runsLeft = await rows<{ status: string }>(w, "select status from skillsync_runs");
          expect(runsLeft.map((r) => r.status)).toEqual(["succeeded"]);
          inFlight = await interruptedRequests(w);
        } finally {
          await w.close();
        }
        // A call the killed process had in flight may have been answered (and billed) just before
        // the kill, its answer never stored: the resumed run sends it again. Nothing else is paid twice.
        const charged = emulator.ledger().calls.filter((c) => c.credits > 0);
        const seen = new Map<string, number>();
        for (const c of charged)
          seen.set(`${c.slug}:${c.bodyHash}`, (seen.get(`${c.slug}:${c.bodyHash}`) ?? 0) + 1);
        const twice = [...seen].filter(([key, n]) => n > (inFlight.has(key) ? 2 : 1)).map(([key]) => key);
        expect(twice, `kill after ${afterMs} ms: a request was paid twice`).toEqual([]);
      }
    }, 120_000);
  });
});
