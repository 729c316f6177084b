import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { listen } from "../../core/listen.js";
import type { RunCounters } from "../../store/runs.js";

/**
 * A worker's Prometheus metrics: calls sent and their latency, credits spent, failed calls, and
 * the queue's depth (read from the queue when scraped).
 */
export function workerMetrics(queueDepth: () => Promise<number>) {
  const registry = new Registry();
  const { calls, credits, failures, latency } = workerCollectors(registry, queueDepth);
  // Per batch, the counters last seen: metrics add what changed since (a batch taken over
  // starts from what the earlier attempt counted, which was not this worker's).
  const last = new Map<string, RunCounters>();
  return {
    registry,
    onCall(ms: number, ok: boolean): void {
      calls.inc({ outcome: ok ? "answered" : "failed" });
      latency.observe(ms / 1000);
    },
    onCounters(jobId: string, c: RunCounters): void {
      const before = last.get(jobId);
      last.set(jobId, { ...c });
      if (!before) return;
      if (c.creditsSpent > before.creditsSpent) credits.inc(c.creditsSpent - before.creditsSpent);
      if (c.callsFailed > before.callsFailed) failures.inc(c.callsFailed - before.callsFailed);
    },
    ended(jobId: string): void {
      last.delete(jobId);
    },
    /** Serves `GET /metrics` on the port (0: any free one); resolves with the bound port. */
    serve(port: number, host = "0.0.0.0"): Promise<{ server: Server; port: number }> {
      return serveMetrics(registry, port, host);
    },
  };
}

/** The worker's metrics, registered in `registry`; the queue's depth is asked at each scrape. */
function workerCollectors(registry: Registry, queueDepth: () => Promise<number>) {
  const calls = new Counter({
    name: "skillsync_worker_calls_total",
    help: "Calls this worker sent to the Skill API, by outcome (answered, failed)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const credits = new Counter({
    name: "skillsync_worker_credits_spent_total",
    help: "Credits spent by the calls this worker made",
    registers: [registry],
  });
  const failures = new Counter({
    name: "skillsync_worker_call_failures_total",
    help: "Calls of this worker's batches that failed (sent or not)",
    registers: [registry],
  });
  const latency = new Histogram({
    name: "skillsync_worker_call_duration_seconds",
    help: "Time from sending a call to its answer, retries included",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  new Gauge({
    name: "skillsync_queue_depth",
    help: "Batches of calls waiting in the queue for a worker",
    registers: [registry],
    async collect() {
      this.set(await queueDepth());
    },
  });
  return { calls, credits, failures, latency };
}

async function serveMetrics(
  registry: Registry,
  port: number,
  host: string,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404).end("not found: GET /metrics\n");
      return;
    }
    registry
      .metrics()
      .then((text) => res.writeHead(200, { "content-type": registry.contentType }).end(text))
      .catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  return { server, port: await listen(server, port, host) };
}

export type WorkerMetrics = ReturnType<typeof workerMetrics>;
