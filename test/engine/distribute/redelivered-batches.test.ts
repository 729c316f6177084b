import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import type { BatchJob } from "../../../engine/distribute/batch-job.js";
import { runBatch } from "../../../engine/distribute/run-batch.js";
import { answerKeeper } from "../../../engine/extract/keep-answers.js";
import { succeeded } from "../../../engine/extract/paid-call.js";
import { callFactory } from "../../../engine/extract/planned-calls.js";
import type { SkillCaller } from "../../../engine/extract/skill-caller.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import { insertCall } from "../../../store/calls.js";
import { setRunInvocation, startAttempt } from "../../../store/run-jobs.js";
import { startRun } from "../../../store/runs.js";
import { registerWorker, stopWorker } from "../../../store/workers.js";
import { afterTest } from "../../helpers/after-test.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { publishedPatents } from "../../helpers/legal-status.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";

const DATE = "2026-11-08";
const PATENTS = 200;

/**
 * What `kill -9` leaves of a worker that held a batch whose call was paid and kept, not loaded: the
 * call `answered` with its answer stored, the worker's attempt `active`, the worker gone. Made
 * with the same keeper a worker keeps its answers with.
 */
async function keptByDeadWorker(
  w: Warehouse,
  client: SkillCaller,
  job: BatchJob,
  jobId: string,
): Promise<void> {
  const p = loadPipeline("patent-legal-status");
  await startAttempt(w, { jobId, workerId: "dead", runId: job.runId, pipeline: p.name });
  const keeper = answerKeeper(w, p, job.runId);
  for (const call of job.calls) {
    const record = { runId: job.runId, pipeline: p.name, skill: p.skill, requestHash: call.hash };
    const callId = await insertCall(w.db, { ...record, credits: call.credits }, "reserved");
    const result = await client.send({ slug: call.skill, body: call.body });
    const receivedAt = new Date().toISOString();
    const data = result.data ?? {};
    const end = succeeded(result);
    await keeper.keep({ call, data, text: null, receivedAt, callId, traceId: result.traceId, end });
  }
}

/** A `--refresh` run of patent legal status in batches of one call, as `run --workers --batch-size 1` queues it. */
async function refreshRun(w: Warehouse, client: SkillCaller) {
  const p = loadPipeline("patent-legal-status");
  const patent = publishedPatents(PATENTS, DATE);
  const [c] = await preparePipelines(w, [p], { patent });
  const prices = loadPrices();
  const calls = callFactory(p, c!.params, prices, client.prepare.bind(client)).all(patent);
  const run = await startRun(w, {
    key: `k-${Math.random()}`,
    pipelines: [p.name],
    params: {},
    trigger: "manual",
  });
  const invocation = `invocation:${run.id}:1`;
  await setRunInvocation(w, run.id, invocation);
  const pipeline = { file: p.file, text: readFileSync(p.file, "utf8"), params: c!.params, freshnessMs: 0 };
  return calls.map(
    (call): BatchJob => ({
      runId: run.id,
      invocation,
      maxCredits: undefined,
      resumed: false,
      pipeline,
      prices: [...prices],
      calls: [call],
    }),
  );
}

describe.skipIf(unavailable("postgres"))("batches re-delivered after their worker died", () => {
  it("each loads its own kept answer: a batch finished first does not mark the other's call loaded", async () => {
    const { client } = await emulatorWithClient({ date: DATE });
    const w = await openWarehouse(freshWarehouseUrl("postgres"));
    afterTest(() => w.close());
    const jobs = await refreshRun(w, client);
    expect(jobs).toHaveLength(2);
    // A worker held both batches (two slots) and died after keeping both answers.
    await registerWorker(w, { id: "dead", concurrency: 2 });
    await keptByDeadWorker(w, client, jobs[0]!, "job-x");
    await keptByDeadWorker(w, client, jobs[1]!, "job-y");
    await stopWorker(w, "dead");

    // Their leases ran out: another worker takes them, one after the other.
    await registerWorker(w, { id: "next", concurrency: 2 });
    const ctx = {
      warehouse: w,
      client,
      workerId: "next",
      concurrency: 2,
      drain: new AbortController().signal,
    };
    await runBatch(ctx, "job-x", jobs[0]!);
    await runBatch(ctx, "job-y", jobs[1]!);

    const runId = jobs[0]!.runId;
    const calls = await rows<{ outcome: string; loaded_rows: unknown }>(
      w,
      `select outcome, loaded_rows from skillsync_calls where run_id = '${runId}' order by id`,
    );
    expect(calls.map((r) => r.outcome)).toEqual(["succeeded", "succeeded"]);
    // Each call's load wrote its rows (a call marked loaded by another batch's end has 0).
    expect(calls.map((r) => Number(r.loaded_rows) > 0)).toEqual([true, true]);
    const load = await rows<{ versions_new: unknown; unchanged: unknown }>(
      w,
      `select versions_new, unchanged from skillsync_loads where run_id = '${runId}'`,
    );
    expect(load.map((l) => Number(l.versions_new) + Number(l.unchanged))).toEqual([PATENTS]);
    const keys = await rows<{ n: unknown }>(
      w,
      "select count(distinct publication_number) as n from patent_legal_status",
    );
    expect(Number(keys[0]!.n)).toBe(PATENTS);
  }, 60_000);
});
