import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices } from "../../../engine/define/prices.js";
import type { BatchJob } from "../../../engine/distribute/batch-job.js";
import { runBatch } from "../../../engine/distribute/run-batch.js";
import { callFactory } from "../../../engine/extract/planned-calls.js";
import { deliverDue } from "../../../engine/notify/deliver.js";
import { startDelivery } from "../../../engine/notify/loop.js";
import { preparePipelines } from "../../../engine/run/prepare.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { setBudget } from "../../../store/budget-status.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { setRunInvocation, startAttempt } from "../../../store/run-jobs.js";
import { startRun } from "../../../store/runs.js";
import { registerWorker } from "../../../store/workers.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { type Received, startReceiver } from "../../helpers/notify-receiver.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { openTracked, startTracked, tempDir, writeScheduledPipeline } from "../../scheduler/fixtures.js";
import { pipelineFrom } from "../fixtures.js";

const warehouses: Warehouse[] = [];
const loops: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const l of loops.splice(0)) await l.stop();
  for (const w of warehouses.splice(0)) await w.close();
});

async function fresh(kind: (typeof WAREHOUSE_KINDS)[number]): Promise<Warehouse> {
  const w = await openWarehouse(freshWarehouseUrl(kind));
  warehouses.push(w);
  await migrateToLatest(w);
  return w;
}

const rejecting = () =>
  pipelineFrom(`name: notify-rejects
skill: marketplace-search
params: { keyword: { repeatable: true, required: true } }
input: { name: keyword, from: { param: keyword } }
request: { keyword: "{{keyword}}" }
freshness: 0
records:
  path: products
  table: notify_rejects
  mode: append
  columns:
    keyword: { from: $request.keyword }
    asin: { from: asin, type: number }
`);

/** Each event received once, within 10 s of the moment it was written. */
function expectOnceEach(received: Received[]): void {
  const ids = received.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const r of received) {
    expect(r.body.event["id"]).toBe(r.id);
    expect(typeof r.body.text).toBe("string");
  }
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`notifications of each event (${kind})`, () => {
    it("runs that fail, end with warnings or stop at a ceiling, and budgets past 80 % and 100 %", async () => {
      const w = await fresh(kind);
      const hook = await startReceiver();
      const notify = [hook.target()];
      const loop = startDelivery(w, notify, { everyMs: 200 });
      loops.push(loop);
      const { client } = await emulatorWithClient();
      const { client: refused } = await emulatorWithClient({}, { apiKey: "sk-wrong-key-0123456789" });
      const market = loadPipeline("marketplace-search");

      const failed = await runPipelines({
        warehouse: w,
        client: refused,
        pipelines: [market],
        params: { keyword: ["a"] },
        notify,
      });
      const warned = await runPipelines({
        warehouse: w,
        client,
        pipelines: [rejecting()],
        params: { keyword: ["b"] },
        notify,
      });
      await setBudget(w, "daily", 4);
      const keyword = ["c1", "c2", "c3", "c4", "c5", "c6"];
      const stopped = await runPipelines({
        warehouse: w,
        client,
        pipelines: [market],
        params: { keyword },
        concurrency: 1,
        notify,
      });
      expect([failed.status, warned.status, stopped.status]).toEqual(["failed", "warnings", "ceiling"]);

      const kinds = ["run.failed", "run.warnings", "run.ceiling", "budget.80", "budget.100"];
      await until(
        async () => kinds.every((k) => hook.received.some((r) => r.kind === k)),
        10_000,
        "every event",
      );
      expectOnceEach(hook.received);
      const byKind = (k: string) => hook.received.filter((r) => r.kind === k);
      expect(byKind("run.failed").map((r) => r.body.event["runId"])).toEqual([failed.runId]);
      expect(byKind("run.warnings").map((r) => r.body.event["runId"])).toEqual([warned.runId]);
      expect(byKind("run.ceiling").map((r) => r.body.event["runId"])).toEqual([stopped.runId]);
      expect(byKind("budget.100")[0]!.body.event).toMatchObject({
        budget: "daily",
        threshold: 100,
        limitCredits: 4,
      });
      expect(byKind("budget.100")[0]!.body.text).toMatch(/daily budget .* fully spent: 4 of 4 credits/);
      // Nothing more to deliver: a further pass sends nothing again.
      const before = hook.received.length;
      await deliverDue(w, notify);
      expect(hook.received.length).toBe(before);
    }, 60_000);

    it("schedule ticks missed and skipped", async () => {
      const { client } = await emulatorWithClient();
      const w = await openTracked(freshWarehouseUrl(kind));
      const hook = await startReceiver();
      const notify = [hook.target()];
      const dir = tempDir();
      const past = new Date(Date.now() - 10_000);
      const daily = `${past.getUTCSeconds()} ${past.getUTCMinutes()} ${past.getUTCHours()} * * *`;
      const lazy = writeScheduledPipeline(dir, { name: "lazy", cron: daily });
      const busy = writeScheduledPipeline(dir, { name: "busy" });
      const first = await startTracked({ warehouse: w, client, files: [lazy, busy] });
      await first.scheduler.stop(0);
      // The scheduler was down for 20 s, and `busy` is paused by hand: each of its ticks is skipped.
      const downSince = new Date(Date.now() - 20_000).toISOString();
      await w.db.updateTable("skillsync_schedule_state").set({ checked_at: downSince }).execute();
      await w.db
        .updateTable("skillsync_schedule_state")
        .set({ paused: 1, paused_reason: "test" })
        .where("pipeline", "=", "busy")
        .execute();
      loops.push(startDelivery(w, notify, { everyMs: 200 }));
      const { scheduler } = await startTracked({ warehouse: w, client, files: [lazy, busy], notify });
      await until(
        async () =>
          ["schedule.missed", "schedule.skipped"].every((k) => hook.received.some((r) => r.kind === k)),
        10_000,
        "a missed and a skipped tick told",
      );
      await scheduler.stop(0);
      await deliverDue(w, notify);
      expectOnceEach(hook.received);
      const missed = hook.received.filter((r) => r.kind === "schedule.missed");
      expect(missed.map((r) => r.body.event["pipeline"])).toEqual(["lazy"]);
      expect(missed[0]!.body.event["tickAt"]).toBe(
        new Date(Math.floor(past.getTime() / 1000) * 1000).toISOString(),
      );
      expect(hook.received.find((r) => r.kind === "schedule.skipped")!.body.event["reason"]).toMatch(
        /paused \(test\)/,
      );
    }, 60_000);

    it("a worker lost holding a batch, found by the worker taking it over", async () => {
      const w = await fresh(kind);
      const hook = await startReceiver();
      const notify = [hook.target()];
      const { client } = await emulatorWithClient();
      const p = loadPipeline("marketplace-search");
      const [c] = await preparePipelines(w, [p], { keyword: ["x", "y"] });
      const prices = loadPrices();
      const run = await startRun(w, { key: "k-lost", pipelines: [p.name], params: {}, trigger: "manual" });
      await setRunInvocation(w, run.id, "inv-1");
      const job: BatchJob = {
        runId: run.id,
        invocation: "inv-1",
        maxCredits: undefined,
        resumed: false,
        pipeline: {
          file: p.file,
          text: readFileSync(p.file, "utf8"),
          params: c!.params,
          freshnessMs: c!.freshnessMs,
        },
        prices: [...prices],
        calls: callFactory(p, c!.params, prices, client.prepare.bind(client)).all(["x", "y"]),
      };
      // A worker that took the batch and then fell silent (no heartbeat for ten minutes).
      await registerWorker(w, { id: "dead-worker", concurrency: 1 });
      const stale = new Date(Date.now() - 600_000).toISOString();
      await w.db
        .updateTable("skillsync_workers")
        .set({ heartbeat_at: stale })
        .where("id", "=", "dead-worker")
        .execute();
      await startAttempt(w, { jobId: "job-1", workerId: "dead-worker", runId: run.id, pipeline: p.name });
      await registerWorker(w, { id: "me", concurrency: 2 });
      const ctx = {
        warehouse: w,
        client,
        workerId: "me",
        concurrency: 2,
        drain: new AbortController().signal,
        notify,
      };
      await runBatch(ctx, "job-1", job);
      await deliverDue(w, notify);
      expectOnceEach(hook.received);
      expect(hook.received.map((r) => [r.kind, r.body.event["workerId"], r.body.event["takenBy"]])).toEqual([
        ["worker.lost", "dead-worker", "me"],
      ]);
    }, 60_000);
  });
}
