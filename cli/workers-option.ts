import type { Command } from "commander";
import { openWorkQueue, queueSchema, type WorkQueue } from "../connectors/queue/work-queue.js";
import { parseWarehouseUrl, type WarehouseTarget } from "../connectors/warehouse/url.js";
import type { WorkersOptions } from "../engine/start/start-run.js";
import { numberFlag, UsageError } from "./context.js";

export interface WorkersFlags {
  workers?: boolean;
  batchSize?: string;
  lease?: string;
}

/** `--workers`, `--batch-size` and `--lease` of the commands that start runs (run, serve, schedule). */
export function withWorkersOptions(cmd: Command): Command {
  return cmd
    .option(
      "--workers",
      "queue each run's calls in batches for skillsync worker processes (Postgres warehouse) instead of making them here",
    )
    .option("--batch-size <n>", "with --workers: calls per queued batch (default 20)")
    .option(
      "--lease <seconds>",
      "with --workers: how long a worker holds a batch before it goes to another, as a dead worker's (default 120)",
    );
}

/**
 * The workers' settings when `--workers` is given, checked before anything is opened or sent: the
 * warehouse must be Postgres (its queue lives there).
 */
/** The warehouse of a worker command: Postgres, where the queue lives, said before anything is opened. */
export function workersWarehouse(db: string | undefined): WarehouseTarget {
  const target = parseWarehouseUrl(db);
  queueSchema(target);
  return target;
}

export function workersFlags(flags: WorkersFlags, db: string | undefined) {
  if (!flags.workers) {
    const stray =
      flags.batchSize !== undefined ? "--batch-size" : flags.lease !== undefined ? "--lease" : undefined;
    if (stray)
      throw new UsageError(`${stray} goes with --workers: without it every call is made in this process`);
    return undefined;
  }
  return {
    target: workersWarehouse(db),
    batchSize: numberFlag("--batch-size", flags.batchSize, { integer: true, min: 1 }),
    leaseSeconds: numberFlag("--lease", flags.lease, { integer: true, min: 5 }),
  };
}

/** Opens the queue for `--workers`: the workers' options every run it starts is given, and the queue to close. */
export async function openWorkers(
  w: ReturnType<typeof workersFlags>,
): Promise<{ queue: WorkQueue; options: WorkersOptions } | undefined> {
  if (!w) return undefined;
  const queue = await openWorkQueue(w.target);
  return { queue, options: { queue, batchSize: w.batchSize, leaseSeconds: w.leaseSeconds } };
}
