import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import { callFactory } from "../../../engine/extract/planned-calls.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { finishCall, insertCall } from "../../../store/calls.js";
import { claimItems } from "../../../store/item-flights.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { storeResponse } from "../../../store/responses.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { insertOtherRun, outcomeOf, rows, whileRunWaits } from "../fixtures.js";

// Above Linux's largest pid (2^22): no process has it.
const DEAD_PID = 4_194_400;
const [A, B, C] = ["US1000001B2", "US1000002B2", "US1000003B2"];

/**
 * A warehouse where run "other" (owned by `pid` on this host) has a batch of A and B reserved and
 * its identifiers claimed; `run` asks for A and C.
 */
async function withOtherBatchInFlight(kind: "sqlite" | "postgres", pid: number) {
  const { emulator, client } = await emulatorWithClient();
  const w = await openWarehouse(freshWarehouseUrl(kind));
  await migrateToLatest(w);
  const p = loadPipeline("patent-bibliography");
  const factory = callFactory(p, {}, loadPrices(), client.prepare.bind(client));
  await insertOtherRun(w, p.name, pid);
  const batch = factory.forItems([A, B]);
  const record = { runId: "other", pipeline: p.name, skill: p.skill, requestHash: batch.hash, credits: 2 };
  const callId = await insertCall(w.db, record, "reserved");
  await claimItems(w.db, callId, batch.parts!.hashes);
  const { onStart, meanwhile } = whileRunWaits();
  const run = () =>
    runPipelines({ warehouse: w, client, pipelines: [p], params: { patent: [A, C] }, onStart });
  const paidItems = () => emulator.ledger().calls.flatMap((c) => (c.credits > 0 ? (c.items ?? []) : []));
  return { w, callId, itemHashA: batch.parts!.hashes[0]!, run, meanwhile, paidItems };
}

describe.each(WAREHOUSE_KINDS)("identifiers another run's batch has in flight, on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("are awaited and loaded from that batch's answer; only the others are paid", async () => {
      const o = await withOtherBatchInFlight(kind, process.pid);
      const [summary] = await Promise.all([
        o.run(),
        o.meanwhile(async () => {
          await storeResponse(o.w.db, {
            hash: o.itemHashA,
            skill: "patent-core-bibliography",
            request: { patentNumber: A },
            data: { total: 1, data: [{ pn: A, title: "from the other run" }] },
            traceId: null,
            runId: "other",
            receivedAt: new Date().toISOString(),
          });
          await finishCall(o.w.db, o.callId, { outcome: "succeeded" });
        }),
      ]);
      expect(summary.status).toBe("succeeded");
      expect(o.paidItems()).toEqual([C]);
      expect(summary.counters).toMatchObject({ itemsReused: 1, callsShared: 1, creditsSpent: 1 });
      const titles = await rows<{ title: string }>(
        o.w,
        `select title from patent_bibliography where publication_number = '${A}'`,
      );
      expect(titles).toEqual([{ title: "from the other run" }]);
      await o.w.close();
    });

    it("are taken over when that run's process is dead", async () => {
      const o = await withOtherBatchInFlight(kind, DEAD_PID);
      const summary = await o.run();
      expect(summary.status).toBe("succeeded");
      expect(o.paidItems().sort()).toEqual([A, C]);
      expect(await outcomeOf(o.w, o.callId)).toBe("interrupted");
      await o.w.close();
    });

    it("are not sent when that batch ended ambiguous: a failure, as its own would be", async () => {
      const o = await withOtherBatchInFlight(kind, process.pid);
      const [summary] = await Promise.all([
        o.run(),
        o.meanwhile(() => finishCall(o.w.db, o.callId, { outcome: "ambiguous", credits: 2 })),
      ]);
      expect(summary.status).toBe("failed");
      expect(summary.failures.map((f) => [f.code, f.ambiguous])).toEqual([["SHARED_AMBIGUOUS", true]]);
      expect(summary.failures[0]!.message).toMatch(
        /run other asked for 1 of this batch's identifiers \(US1000001B2…\)/,
      );
      expect(o.paidItems()).toEqual([C]);
      await o.w.close();
    });
  });
});
