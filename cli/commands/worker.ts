import type { Command } from "commander";
import { openWorkQueue } from "../../connectors/queue/work-queue.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { startWorker } from "../../engine/distribute/worker.js";
import { startDelivery } from "../../engine/notify/loop.js";
import { migrateToLatest } from "../../store/migrate.js";
import { liveWorkers } from "../../store/workers.js";
import { dbOption, makeClient, numberFlag, portFlag, withWarehouse } from "../context.js";
import { firstSignal } from "../daemon.js";
import { cliLog } from "../log.js";
import { notifyTargets, withNotifyOption } from "../notify-option.js";
import { printJson, printLine, printTable } from "../output.js";
import { listenOrExplain } from "../port-in-use.js";
import { type RateFlags, rateSettings, withRateOptions } from "../rate-option.js";
import { workersWarehouse } from "../workers-option.js";

interface WorkerFlags extends RateFlags {
  db?: string;
  concurrency: string;
  metricsPort?: string;
  baseUrl?: string;
  notify?: string;
}

/** `skillsync worker`: takes batches of runs' calls from the queue until SIGTERM, then drains. */
async function runWorker(flags: WorkerFlags): Promise<void> {
  const concurrency = numberFlag("--concurrency", flags.concurrency, { integer: true, min: 1 }) ?? 4;
  const metricsPort = portFlag("--metrics-port", flags.metricsPort, { anyFree: true });
  // A SQLite warehouse has no queue: said before anything is opened or created.
  workersWarehouse(dbOption(flags));
  const notify = notifyTargets(flags);
  const client = makeClient(flags.baseUrl, rateSettings(flags));
  const signals = firstSignal();
  const log = cliLog();
  const w = await openWarehouse(dbOption(flags));
  try {
    const queue = await openWorkQueue(w.target);
    // prom-client is loaded only by a worker that serves metrics.
    const metrics =
      metricsPort === undefined
        ? undefined
        : (await import("../../engine/distribute/metrics.js")).workerMetrics(() => queue.depth());
    const served =
      metrics && metricsPort !== undefined
        ? await listenOrExplain(() => metrics.serve(metricsPort), {
            port: metricsPort,
            host: "0.0.0.0",
            flag: "--metrics-port",
          })
        : undefined;
    try {
      const worker = await startWorker({ warehouse: w, queue, client, concurrency, log, metrics, notify });
      // Delivers what this worker decided (a worker lost) and anything else due for the webhook.
      const delivery = startDelivery(w, notify, { log });
      const workerId = worker.id;
      log(`worker ${workerId} on ${w.description} (queue schema ${queue.schema})`, {
        event: "worker.ready",
        workerId,
        warehouse: w.description,
        queueSchema: queue.schema,
      });
      if (served)
        log(`metrics on http://0.0.0.0:${served.port}/metrics`, {
          event: "worker.metrics",
          port: served.port,
        });
      const name = await signals.signal;
      log(`${name}: no new batch; calls in flight finish and are recorded (${name} again to quit now)`, {
        event: "worker.stopping",
        workerId,
        signal: name,
      });
      await worker.drain();
      await delivery.stop();
      log(`worker ${workerId} stopped`, { event: "worker.stopped", workerId });
    } finally {
      served?.server.close();
      await queue.close();
    }
  } finally {
    signals.dispose();
    await client.close();
    await w.close();
  }
}

export function registerWorkerCommands(program: Command): void {
  const worker = program
    .command("worker")
    .description(
      "take batches of runs' calls from the queue (Postgres warehouse) and make them; SIGTERM drains",
    )
    .option("--db <url>", "the warehouse: postgres://… (default DATABASE_URL)")
    .option("--concurrency <n>", "calls in flight at most in this worker", "4")
    .option("--metrics-port <port>", "serve Prometheus metrics on GET /metrics at this port")
    .option("--base-url <url>", "Skill API base URL (default SKILL_API_BASE_URL)");
  withRateOptions(withNotifyOption(worker)).action(runWorker);
  program
    .command("workers")
    .description("list the live workers: host, pid, concurrency, current run, last heartbeat")
    .option("--db <url>", "the warehouse: postgres://… (default DATABASE_URL)")
    .option("--json", "print JSON")
    .action((flags: { db?: string; json?: boolean }) => {
      workersWarehouse(dbOption(flags));
      return withWarehouse(
        dbOption(flags),
        async (w) => {
          await migrateToLatest(w);
          const list = await liveWorkers(w);
          if (flags.json) return printJson(list);
          if (!list.length)
            return printLine("no live worker: start one with skillsync worker --db <this warehouse>");
          printTable(
            list.map((r) => ({
              worker: r.id,
              host: r.host,
              pid: r.pid,
              concurrency: r.concurrency,
              in_flight: r.callsInFlight,
              run: r.runId ?? "-",
              heartbeat: r.heartbeatAt.slice(0, 19),
              started: r.startedAt.slice(0, 19),
            })),
          );
        },
        { existing: true },
      );
    });
}
