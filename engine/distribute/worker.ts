import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import pLimit, { type LimitFunction } from "p-limit";
import type { WorkQueue } from "../../connectors/queue/work-queue.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type Log, silentLog } from "../../core/log.js";
import { migrateToLatest } from "../../store/migrate.js";
import type { OutboxTarget } from "../../store/outbox.js";
import { beatWorker, registerWorker, stopWorker } from "../../store/workers.js";
import { shareRateLimit } from "../extract/rate-share.js";
import type { SkillCaller } from "../extract/skill-caller.js";
import type { BatchJob } from "./batch-job.js";
import type { WorkerMetrics } from "./metrics.js";
import { type BatchContext, runBatch } from "./run-batch.js";

export interface WorkerOptions {
  warehouse: Warehouse;
  queue: WorkQueue;
  client: SkillCaller;
  /** Calls in flight at most, over every batch this worker holds. */
  concurrency: number;
  /** One `worker.*` event per batch taken or failed; default: nothing. */
  log?: Log | undefined;
  /** Counts calls, latency, credits and failures (`--metrics-port`). */
  metrics?: WorkerMetrics | undefined;
  /** Webhooks told of a worker found dead holding a batch this one takes over (`--notify`). */
  notify?: readonly OutboxTarget[] | undefined;
}

export interface Worker {
  readonly id: string;
  /** No new batch; calls in flight finish and are recorded; unfinished batches go back to the queue. */
  drain(): Promise<void>;
}

const HEARTBEAT_MS = 5000;
/** Batches held at once: the next one starts while the last calls of one finish. */
const SLOTS = 2;

/**
 * A worker: takes batches of runs' calls from the queue and makes them as a local run would,
 * `concurrency` calls in flight at most, beating its heart in skillsync_workers.
 *
 * @example const worker = await startWorker({ warehouse, queue, client, concurrency: 8 });
 * process.once("SIGTERM", () => void worker.drain().then(() => process.exit(0)));
 */
export async function startWorker(o: WorkerOptions): Promise<Worker> {
  const w = o.warehouse;
  await migrateToLatest(w);
  shareRateLimit(o.client, w);
  const id = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  await registerWorker(w, { id, concurrency: o.concurrency });
  const drain = new AbortController();
  const limit = pLimit(o.concurrency);
  const heart = heartbeat(w, id, limit);
  const batches: BatchContext = {
    warehouse: w,
    client: limitedClient(o.client, limit, o.metrics),
    workerId: id,
    concurrency: o.concurrency,
    drain: drain.signal,
    notify: o.notify,
  };
  const log = o.log ?? silentLog;
  await o.queue.work<BatchJob>(SLOTS, (job) =>
    deliverBatch(batches, job, { log, heart, metrics: o.metrics }),
  );
  log(`worker ${id}: taking batches, ${o.concurrency} call(s) in flight at most`, {
    event: "worker.started",
    workerId: id,
    concurrency: o.concurrency,
  });
  return {
    id,
    async drain() {
      drain.abort();
      await o.queue.stopTaking();
      heart.stop();
      await stopWorker(w, id);
    },
  };
}

/**
 * The client the worker's batches share: one limit over every batch held (`--concurrency` is the
 * worker's, not each batch's), each call counted in the metrics.
 */
function limitedClient(
  inner: SkillCaller,
  limit: LimitFunction,
  metrics: WorkerMetrics | undefined,
): SkillCaller {
  return {
    prepare: inner.prepare.bind(inner),
    send: (prepared, opts) =>
      limit(async () => {
        const t0 = performance.now();
        try {
          const r = await inner.send(prepared, opts);
          metrics?.onCall(performance.now() - t0, true);
          return r;
        } catch (err) {
          metrics?.onCall(performance.now() - t0, false);
          throw err;
        }
      }),
    ...(inner.config ? { config: inner.config } : {}),
  };
}

/**
 * The worker's heartbeat in skillsync_workers: every few seconds, and at once when it takes a
 * batch; it names the run of the batch taken last and the calls in flight.
 */
function heartbeat(w: Warehouse, id: string, limit: LimitFunction) {
  const holding = new Map<string, string>();
  const beat = () =>
    beatWorker(w, id, {
      runId: [...holding.values()].at(-1) ?? null,
      callsInFlight: limit.activeCount,
    }).catch(() => {});
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  return {
    hold(jobId: string, runId: string): void {
      holding.set(jobId, runId);
      void beat();
    },
    release(jobId: string): void {
      holding.delete(jobId);
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}

/** One batch taken from the queue: made, logged, and let go whatever its end (a failure goes back to the queue). */
async function deliverBatch(
  batches: BatchContext,
  job: { id: string; data: BatchJob; retryCount: number },
  o: { log: Log; heart: ReturnType<typeof heartbeat>; metrics: WorkerMetrics | undefined },
): Promise<void> {
  o.heart.hold(job.id, job.data.runId);
  const about = { batch: job.id, runId: job.data.runId, workerId: batches.workerId };
  o.log(
    `batch ${job.id} of run ${job.data.runId}: ${job.data.calls.length} call(s)${job.retryCount ? ` (delivery ${job.retryCount + 1})` : ""}`,
    { event: "worker.batch", ...about, calls: job.data.calls.length, delivery: job.retryCount + 1 },
  );
  try {
    await runBatch({ ...batches, onCounters: (c) => o.metrics?.onCounters(job.id, c) }, job.id, job.data);
  } catch (err) {
    o.log(`batch ${job.id}: ${err instanceof Error ? err.message : String(err)}`, {
      event: "worker.batch.failed",
      level: "error",
      ...about,
    });
    throw err;
  } finally {
    o.heart.release(job.id);
    o.metrics?.ended(job.id);
  }
}
