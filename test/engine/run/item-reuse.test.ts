import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { writePipelineFile } from "../../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";
import { ids, paidPerItem, shuffled } from "./item-ids.js";

/** The pipeline's tables, sorted, without what differs between runs (run ids, fetch times). */
async function tables(w: Warehouse): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of [
    "patent_bibliography",
    "patent_applicants",
    "patent_classifications",
    "patent_citations",
  ]) {
    const list = await rows<Record<string, unknown>>(w, `select * from ${t}`);
    out[t] = list
      .map((r) =>
        Object.fromEntries(
          Object.entries(r).filter(
            ([k]) => !/^_?(run_id|load_id|observed_at|loaded_at|_run|_observed)/.test(k),
          ),
        ),
      )
      .map((r) => JSON.stringify(r))
      .sort();
  }
  return out;
}

/** A copy of a built-in pipeline with another freshness (same skill and requests: same stored parts). */
function withFreshness(name: string, freshness: string): string {
  const text = readFileSync(loadPipeline(name).file, "utf8").replace(
    /^freshness: .*$/m,
    `freshness: ${freshness}`,
  );
  return writePipelineFile(text, {}, `${name}.yaml`);
}

describe.each(WAREHOUSE_KINDS)("per-item reuse on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("the issue's sequence pays 3 credits, and the tables are those of a fresh fetch", async () => {
      const { emulator, client } = await emulatorWithClient();
      const run = (w: Warehouse, patent: string[]) =>
        runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline("patent-bibliography")],
          params: { patent },
        });
      const w = await openWarehouse(freshWarehouseUrl(kind));
      const fresh = await openWarehouse(freshWarehouseUrl(kind));
      try {
        const first = await run(w, ["US1000001B2", "US1000002B2"]);
        expect(first.status).toBe("succeeded");
        const second = await run(w, ["US1000001B2", "US1000003B2"]);
        expect(second.status).toBe("succeeded");
        expect(emulator.ledger().totalCredits).toBe(3);
        expect(second.counters.itemsReused).toBe(1);
        expect(second.counters.creditsSaved).toBe(1);
        expect(second.counters.creditsSpent).toBe(1);
        emulator.reset();
        await run(fresh, ["US1000001B2", "US1000002B2", "US1000003B2"]);
        const loaded = await tables(w);
        expect(loaded["patent_bibliography"]!.length).toBeGreaterThan(0);
        expect(loaded).toEqual(await tables(fresh));
      } finally {
        await w.close();
        await fresh.close();
      }
    }, 60_000);

    it("250 identifiers over overlapping runs: each paid once within freshness, once more after it", async () => {
      const { emulator, client } = await emulatorWithClient();
      const all = ids(250);
      const db = freshWarehouseUrl(kind);
      const w = await openWarehouse(db);
      const run = (file: string, patent: string[]) =>
        runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline(file)],
          params: { patent },
          concurrency: 3,
        });
      try {
        for (let i = 0; i < 5; i++) {
          const list = shuffled(all, i + 1).slice(0, 90 + 30 * i);
          const s = await run("patent-bibliography", list);
          expect(s.status).toBe("succeeded");
        }
        await run("patent-bibliography", shuffled(all, 99));
        const once = paidPerItem(emulator);
        expect(once.size).toBe(250);
        expect([...once.values()].every((n) => n === 1)).toBe(true);
        // The same requests with a one-second freshness, over a second later: every item is stale.
        await new Promise((r) => setTimeout(r, 1100));
        const short = withFreshness("patent-bibliography", "1s");
        const again = await run(short, shuffled(all, 7));
        expect(again.counters.itemsReused).toBe(0);
        await run("patent-bibliography", shuffled(all, 8));
        const twice = paidPerItem(emulator);
        expect([...twice.values()].every((n) => n === 2)).toBe(true);
        // Every known identifier is loaded (the emulator knows about nine in ten).
        const count = await rows<{ n: number }>(w, "select count(*) as n from patent_bibliography");
        expect(Number(count[0]?.n)).toBeGreaterThan(200);
      } finally {
        await w.close();
      }
    }, 120_000);

    it("a run stopped at its ceiling resumes without paying any item twice", async () => {
      const { emulator, client } = await emulatorWithClient();
      const w = await openWarehouse(freshWarehouseUrl(kind));
      const all = ids(250, 1000);
      const run = (maxCredits?: number) =>
        runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline("patent-family")],
          params: { patent: all },
          maxCredits,
          concurrency: 1,
        });
      try {
        const stopped = await run(150);
        expect(stopped.status).toBe("ceiling");
        const resumed = await run();
        expect(resumed).toMatchObject({ status: "succeeded", resumed: true });
        // Items the first part paid for are its own: neither paid again nor counted as saved.
        expect(resumed.counters.itemsReused).toBe(0);
        const paid = paidPerItem(emulator);
        expect(paid.size).toBe(250);
        expect([...paid.values()].every((n) => n === 1)).toBe(true);
      } finally {
        await w.close();
      }
    }, 60_000);

    it("a history load stopped at its ceiling and resumed counts each key once: what it had loaded is not loaded again", async () => {
      const { emulator, client } = await emulatorWithClient();
      const w = await openWarehouse(freshWarehouseUrl(kind));
      const all = ids(250, 3000);
      const run = (maxCredits?: number) =>
        runPipelines({
          warehouse: w,
          client,
          pipelines: [loadPipeline("patent-legal-status")],
          params: { patent: all },
          maxCredits,
          concurrency: 1,
        });
      try {
        const stopped = await run(150);
        expect(stopped.status).toBe("ceiling");
        const [before] = await rows<{ n: unknown }>(w, "select count(*) as n from patent_legal_status");
        expect(Number(before!.n)).toBeGreaterThan(0);
        const resumed = await run();
        expect(resumed).toMatchObject({ status: "succeeded", resumed: true });
        expect([...paidPerItem(emulator).values()].every((n) => n === 1)).toBe(true);
        const loads = await rows<{ versions_new: unknown; unchanged: unknown }>(
          w,
          `select versions_new, unchanged from skillsync_loads where run_id = '${resumed.runId}'`,
        );
        expect(loads).toHaveLength(1);
        // Every key once (the emulator knows most of the 250): a first version each, none counted
        // again as unchanged by the resume.
        const [keys] = await rows<{ n: unknown }>(w, "select count(*) as n from patent_legal_status");
        expect(Number(keys!.n)).toBeGreaterThan(Number(before!.n));
        expect(loads.map((l) => [Number(l.versions_new), Number(l.unchanged)])).toEqual([
          [Number(keys!.n), 0],
        ]);
      } finally {
        await w.close();
      }
    }, 60_000);

    it("unknown identifiers are remembered: not paid for twice within freshness", async () => {
      const { emulator, client } = await emulatorWithClient();
      const w = await openWarehouse(freshWarehouseUrl(kind));
      // Unknown, yet possible identifiers: one that cannot be one is refused before any call.
      const unknown = ["XX1", "NOT-A-PATENT-1", "ZZ99"];
      try {
        const run = (patent: string[]) =>
          runPipelines({
            warehouse: w,
            client,
            pipelines: [loadPipeline("patent-legal-status")],
            params: { patent },
          });
        await run([...unknown, ...ids(3)]);
        const second = await run([unknown[1]!, ...unknown.slice(2), ...ids(2), unknown[0]!]);
        expect(second.counters.creditsSpent).toBe(0);
        expect(second.counters.itemsReused).toBe(5);
        for (const id of unknown) expect(paidPerItem(emulator).get(id)).toBe(1);
      } finally {
        await w.close();
      }
    }, 60_000);
  });
});
