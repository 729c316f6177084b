import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import type { BatchJob, BatchOutcome } from "../../../engine/distribute/batch-job.js";
import { runBatch } from "../../../engine/distribute/run-batch.js";
import { callFactory } from "../../../engine/extract/planned-calls.js";
import type { SkillCaller } from "../../../engine/extract/skill-caller.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import { attempts, setRunInvocation } from "../../../store/run-jobs.js";
import { startRun } from "../../../store/runs.js";
import { registerWorker } from "../../../store/workers.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { paidTwice } from "../../reliability/support/ledger.js";
import { count } from "../fixtures.js";

const warehouses: Warehouse[] = [];

/** A run of `n` marketplace-search calls with one batch of them, as `run --workers` queues it. */
async function batchOf(w: Warehouse, client: SkillCaller, n: number): Promise<BatchJob> {
  const p = loadPipeline("marketplace-search");
  const keyword = Array.from({ length: n }, (_, i) => `tent ${i}`);
  const [c] = await preparePipelines(w, [p], { keyword });
  const prices = loadPrices();
  const calls = callFactory(p, c!.params, prices, client.prepare.bind(client)).all(keyword);
  const run = await startRun(w, {
    key: `k-${Math.random()}`,
    pipelines: [p.name],
    params: {},
    trigger: "manual",
  });
  const invocation = `invocation:${run.id}:1`;
  await setRunInvocation(w, run.id, invocation);
  return {
    runId: run.id,
    invocation,
    maxCredits: undefined,
    resumed: false,
    pipeline: {
      file: p.file,
      text: readFileSync(p.file, "utf8"),
      params: c!.params,
      freshnessMs: c!.freshnessMs,
    },
    prices: [...prices],
    calls,
  };
}

describe.skipIf(unavailable("postgres"))("one delivery of a queued batch", () => {
  it("a worker takes up the batch it gave back: what it paid is carried, nothing is paid twice, one attempt row stays", async () => {
    const { emulator, client } = await emulatorWithClient({ latencyMs: 120 });
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    warehouses.push(w);
    const job = await batchOf(w, client, 12);
    await registerWorker(w, { id: "me", concurrency: 2 });
    const ctx = { warehouse: w, client, workerId: "me", concurrency: 2 };

    const drain = new AbortController();
    const first = runBatch({ ...ctx, drain: drain.signal }, "job-1", job);
    await until(async () => emulator.ledger().calls.length >= 4, 30_000, "4 calls paid");
    drain.abort();
    await expect(first).rejects.toThrow(/drained/);
    const given = await attempts<BatchOutcome>(w, { jobId: "job-1" });
    expect(given.map((a) => a.state)).toEqual(["released"]);
    const paidFirst = given[0]!.outcome!.counters.creditsSpent;
    expect(paidFirst).toBeGreaterThanOrEqual(4);

    await runBatch({ ...ctx, drain: new AbortController().signal }, "job-1", job);
    const done = await attempts<BatchOutcome>(w, { jobId: "job-1" });
    expect(done.map((a) => [a.workerId, a.state])).toEqual([["me", "done"]]);
    expect(done[0]!.outcome!.counters.creditsSpent).toBe(12);
    expect(done[0]!.outcome!.counters.callsDone).toBe(12);
    expect(done[0]!.outcome!.complete).toBe(true);
    expect(paidTwice(emulator.ledger().calls).paidTwice).toEqual([]);
    expect(await count(w, "marketplace_search_results")).toBeGreaterThan(0);

    // Delivered once more (its completion lost): done already, nothing is sent.
    const before = emulator.ledger().calls.length;
    await runBatch({ ...ctx, drain: new AbortController().signal }, "job-1", job);
    expect(emulator.ledger().calls.length).toBe(before);
  }, 60_000);

  it("a batch of an earlier invocation of the run (its coordinator died, the run resumed) sends nothing", async () => {
    const { emulator, client } = await emulatorWithClient();
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    warehouses.push(w);
    const job = await batchOf(w, client, 3);
    await registerWorker(w, { id: "me", concurrency: 2 });
    await setRunInvocation(w, job.runId, "invocation:later");
    await runBatch(
      { warehouse: w, client, workerId: "me", concurrency: 2, drain: new AbortController().signal },
      "job-2",
      job,
    );
    expect(emulator.ledger().calls).toHaveLength(0);
    expect(await attempts(w, { jobId: "job-2" })).toEqual([]);
  });
});

afterEach(async () => {
  for (const w of warehouses.splice(0)) await w.close();
});
