import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { finishCall, insertCall } from "../../../store/calls.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { storedResponses, storeResponse } from "../../../store/responses.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { builtin, insertOtherRun, outcomeOf, rows, whileRunWaits } from "../fixtures.js";

// Above Linux's largest pid (2^22): no process has it.
const DEAD_PID = 4_194_400;
const PARAMS = { keyword: ["usb hub"] };

/** A warehouse where run "other" (owned by `pid` on this host) has the request of PARAMS reserved. */
async function withOtherRunInFlight(kind: "sqlite" | "postgres", pid: number) {
  const { emulator, client } = await emulatorWithClient({ latencyMs: 5 });
  const ref = await openWarehouse(freshWarehouseUrl(kind));
  await runPipelines({ warehouse: ref, client, pipelines: builtin("marketplace-search"), params: PARAMS });
  const hash = (await rows<{ request_hash: string }>(ref, "select request_hash from skillsync_calls"))[0]
    ?.request_hash;
  const answer = (await storedResponses(ref.db, [hash!])).get(hash!)!;
  await ref.close();
  emulator.reset();

  const w = await openWarehouse(freshWarehouseUrl(kind));
  await migrateToLatest(w);
  await insertOtherRun(w, "marketplace-search", pid);
  const record = {
    runId: "other",
    pipeline: "marketplace-search",
    skill: "marketplace-search",
    requestHash: hash!,
  };
  const callId = await insertCall(w.db, { ...record, credits: 1 }, "reserved");
  const { onStart, meanwhile } = whileRunWaits();
  const run = () =>
    runPipelines({ warehouse: w, client, pipelines: builtin("marketplace-search"), params: PARAMS, onStart });
  const paid = () => emulator.ledger().calls.filter((c) => c.credits > 0).length;
  return { w, hash: hash!, answer, callId, run, paid, meanwhile };
}

describe.each(WAREHOUSE_KINDS)("a request another run has in flight, on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("is answered by that run's call: nothing sent, counted as from another run", async () => {
      const o = await withOtherRunInFlight(kind, process.pid);
      const [summary] = await Promise.all([
        o.run(),
        o.meanwhile(async () => {
          await storeResponse(o.w.db, {
            hash: o.hash,
            skill: "marketplace-search",
            request: {},
            data: o.answer.data,
            traceId: null,
            runId: "other",
            receivedAt: new Date().toISOString(),
          });
          await finishCall(o.w.db, o.callId, { outcome: "succeeded" });
        }),
      ]);
      expect(summary.status).toBe("succeeded");
      expect(summary.counters.callsShared).toBe(1);
      expect(summary.counters.creditsSpent).toBe(0);
      expect(o.paid()).toBe(0);
      const loaded = await rows<{ n: number }>(o.w, "select count(*) as n from marketplace_search_results");
      expect(Number(loaded[0]!.n)).toBeGreaterThan(0);
      const ledger = await rows<{ outcome: string }>(
        o.w,
        `select outcome from skillsync_calls where run_id = '${summary.runId}'`,
      );
      expect(ledger.map((r) => r.outcome)).toEqual(["shared"]);
      await o.w.close();
    });

    it("is taken over when that run's process is dead", async () => {
      const o = await withOtherRunInFlight(kind, DEAD_PID);
      const summary = await o.run();
      expect(summary.status).toBe("succeeded");
      expect(o.paid()).toBe(1);
      expect(await outcomeOf(o.w, o.callId)).toBe("interrupted");
      await o.w.close();
    });

    it("is not sent again when that call ended ambiguous: a failure, as its own would be", async () => {
      const o = await withOtherRunInFlight(kind, process.pid);
      const [summary] = await Promise.all([
        o.run(),
        o.meanwhile(() => finishCall(o.w.db, o.callId, { outcome: "ambiguous", credits: 1 })),
      ]);
      expect(summary.status).toBe("failed");
      expect(summary.failures.map((f) => [f.code, f.ambiguous])).toEqual([["SHARED_AMBIGUOUS", true]]);
      expect(summary.failures[0]!.message).toMatch(/run other .* may have been billed/);
      expect(o.paid()).toBe(0);
      await o.w.close();
    });
  });
});
