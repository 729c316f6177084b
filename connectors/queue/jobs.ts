import { randomUUID } from "node:crypto";
import type PgBoss from "pg-boss";

/** The queue a run's batches of calls wait in until a worker takes them. */
export const CALLS_QUEUE = "skillsync-calls";

const INSERT_CHUNK = 250;

export type JobState = "created" | "retry" | "active" | "completed" | "cancelled" | "failed";

export interface QueuedJob<T> {
  id: string;
  data: T;
  /** 0 on the first delivery; more when pg-boss re-delivers it (failed, or its lease expired). */
  retryCount: number;
}

/**
 * Puts jobs in the calls queue, each held by a worker at most `leaseSeconds` before pg-boss hands
 * it to another (a dead worker's lease); returns their ids in order.
 */
export async function enqueueJobs<T extends object>(
  boss: PgBoss,
  jobs: T[],
  leaseSeconds: number,
): Promise<string[]> {
  const ids = jobs.map(() => randomUUID());
  // A few hundred jobs per statement: a run of 100,000 calls is not one statement of megabytes.
  for (let at = 0; at < jobs.length; at += INSERT_CHUNK) {
    await boss.insert(
      jobs.slice(at, at + INSERT_CHUNK).map((data, j) => ({
        id: ids[at + j]!,
        name: CALLS_QUEUE,
        data,
        expireInSeconds: leaseSeconds,
        // Re-delivery is safe (a worker re-running a batch pays for nothing already answered),
        // so a batch is retried (every 2 s, for a few minutes) rather than lost.
        retryLimit: 100,
        retryDelay: 2,
        retryBackoff: false,
      })),
    );
  }
  return ids;
}

/**
 * Takes jobs one at a time in each of `slots` pg-boss workers, each handled by `handler`; the
 * handlers running are kept in `active` (so a stop can wait for them).
 */
export async function takeJobs<T>(
  boss: PgBoss,
  o: { slots: number; pollingIntervalSeconds: number; active: Set<Promise<void>> },
  handler: (job: QueuedJob<T>) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < o.slots; i++) {
    let workerId: string | undefined;
    workerId = await boss.work<T>(
      CALLS_QUEUE,
      { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: o.pollingIntervalSeconds },
      async ([job]) => {
        if (!job) return;
        const done = handler({ id: job.id, data: job.data, retryCount: job.retryCount });
        o.active.add(done);
        try {
          await done;
        } finally {
          o.active.delete(done);
          // pg-boss waits out its polling interval after a short job; with a job just done,
          // the next is likely waiting: fetch it now.
          if (workerId) boss.notifyWorker(workerId);
        }
      },
    );
  }
}

/** Each job's state, read from pg-boss's job table in `schema` (jobs it no longer holds left out). */
export async function jobStates(
  db: ReturnType<PgBoss["getDb"]>,
  schema: string,
  ids: string[],
): Promise<Map<string, JobState>> {
  const out = new Map<string, JobState>();
  if (!ids.length) return out;
  const r = await db.executeSql(
    `select id::text, state from "${schema}".job where name = $1 and id = any($2::uuid[])`,
    [CALLS_QUEUE, ids],
  );
  for (const row of r.rows) out.set(String(row.id), row.state as JobState);
  return out;
}
