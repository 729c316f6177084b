/**
 * Figure 6: runs under a rate limit they are not told of. The emulator (own process) allows
 * `limit` calls per second per key (429 with Retry-After past it) and answers after L ms. A run of
 * N calls should pay them at close to the limit, with few refusals and none failed: paid calls/s ÷
 * the limit, refusals (429s) per paid call and failed calls, for one run at several concurrencies,
 * one run told the limit (`--rate`), and W worker processes sharing it through the warehouse. The
 * reference is the limit itself, which no client can beat.
 */
import type { ChildProcess } from "node:child_process";
import { openWorkQueue } from "../connectors/queue/work-queue.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { runOnWorkers } from "../engine/distribute/on-workers.js";
import type { RunSummary } from "../engine/run/runner.js";
import { startEmulatorProcess } from "./emulator-process.js";
import { startWorkerProcess } from "./scaling.js";
import { benchKeywords, marketplaceRun, type Workspace, workspace } from "./workload.js";

export interface RateLimitedFigure {
  setup: string;
  concurrency: number;
  workers: number;
  declared: boolean;
  limitPerSecond: number;
  latencyMs: number;
  calls: number;
  paidPerSecond: number;
  /** Paid calls/s ÷ the limit. */
  ratio: number;
  refusalsPerPaidCall: number;
  failedCalls: number;
  status: string;
}

interface Case {
  setup: string;
  concurrency: number;
  workers: number;
  declared: boolean;
}

/** The run's paid calls per second, from its ledger's first call sent to its last answered. */
async function paidRate(ws: Workspace, s: RunSummary): Promise<number> {
  const span = await ws.warehouse.db
    .selectFrom("skillsync_calls")
    .select((eb) => [
      eb.fn.min("started_at").as("first"),
      eb.fn.max("finished_at").as("last"),
      eb.fn.countAll().as("paid"),
    ])
    .where("run_id", "=", s.runId)
    .where("outcome", "=", "succeeded")
    .executeTakeFirstOrThrow();
  const ms = Date.parse(String(span.last)) - Date.parse(String(span.first));
  return (Number(span.paid) * 1000) / Math.max(1, ms);
}

async function oneCase(
  k: Case,
  o: { limit: number; latencyMs: number; calls: number; pgUrl?: string | undefined },
): Promise<RateLimitedFigure> {
  // A fresh emulator per case: a full bucket, as a first run of the day meets it.
  const emu = await startEmulatorProcess({ latencyMs: o.latencyMs, rateLimit: { perSecond: o.limit } });
  const ws = await workspace(emu.url, k.workers ? o.pgUrl : undefined, k.declared ? { rate: o.limit } : {});
  const workers: ChildProcess[] = [];
  try {
    let s: RunSummary;
    if (k.workers) {
      for (let i = 0; i < k.workers; i++)
        workers.push(
          await startWorkerProcess(
            ws.url,
            emu.url,
            k.concurrency,
            k.declared ? ["--rate", `${o.limit}/s`] : [],
          ),
        );
      const queue = await openWorkQueue(ws.warehouse.target);
      try {
        s = await runOnWorkers({
          warehouse: ws.warehouse,
          client: ws.client,
          pipelines: [loadPipeline("marketplace-search")],
          params: { keyword: benchKeywords(o.calls) },
          concurrency: k.concurrency,
          workers: { queue, batchSize: k.concurrency },
        });
      } finally {
        await queue.close();
      }
    } else {
      s = await marketplaceRun(ws, o.calls, k.concurrency);
    }
    const paidPerSecond = await paidRate(ws, s);
    const paid = s.counters.callsDone - s.counters.callsCached - s.counters.callsFailed;
    return {
      ...k,
      limitPerSecond: o.limit,
      latencyMs: o.latencyMs,
      calls: o.calls,
      paidPerSecond,
      ratio: paidPerSecond / o.limit,
      refusalsPerPaidCall: s.counters.rateLimited / Math.max(1, paid),
      failedCalls: s.counters.callsFailed,
      status: s.status,
    };
  } finally {
    for (const p of workers) p.kill("SIGTERM");
    await Promise.all(
      workers.map((p) => (p.exitCode === null ? new Promise((r) => p.once("exit", r)) : undefined)),
    );
    await ws.close();
    await emu.stop();
  }
}

/** @example await rateLimited({ limit: 20, latencyMs: 200, calls: 600, concurrencies: [8, 32, 64], workers: 3, pgUrl, log }); */
export async function rateLimited(o: {
  limit: number;
  latencyMs: number;
  calls: number;
  concurrencies: number[];
  /** Worker processes × 8 calls each (Postgres only). */
  workers: number;
  pgUrl?: string | undefined;
  log: (line: string) => void;
}): Promise<RateLimitedFigure[]> {
  const cases: Case[] = [
    ...o.concurrencies.map((c) => ({ setup: `run, C = ${c}`, concurrency: c, workers: 0, declared: false })),
    { setup: `run, C = 32, --rate ${o.limit}/s`, concurrency: 32, workers: 0, declared: true },
    ...(o.pgUrl && o.workers
      ? [
          { setup: `${o.workers} workers × 8`, concurrency: 8, workers: o.workers, declared: false },
          {
            setup: `${o.workers} workers × 8, --rate ${o.limit}/s`,
            concurrency: 8,
            workers: o.workers,
            declared: true,
          },
        ]
      : []),
  ];
  const out: RateLimitedFigure[] = [];
  for (const k of cases) {
    o.log(`   ${k.setup}: ${o.calls} calls under ${o.limit}/s, L = ${o.latencyMs} ms`);
    out.push(await oneCase(k, o));
  }
  return out;
}
