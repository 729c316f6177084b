import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import { ConfigurationError } from "../../core/errors.js";
import { isCatalogRace, isDeadlock } from "../warehouse/driver-errors.js";
import { serverOf, type WarehouseTarget } from "../warehouse/url.js";
import { CALLS_QUEUE, enqueueJobs, type JobState, jobStates, type QueuedJob, takeJobs } from "./jobs.js";

interface EnqueueOptions {
  /** How long a worker may hold a job before pg-boss hands it to another (a dead worker's lease). */
  leaseSeconds: number;
}

/** pg-boss, as skillsync uses it: batches of work in, batches of work out, nothing else. */
export interface WorkQueue {
  /** pg-boss's own schema in the warehouse's database. */
  readonly schema: string;
  enqueue<T extends object>(jobs: T[], o: EnqueueOptions): Promise<string[]>;
  /** Takes jobs `slots` at a time until `stopTaking`; a handler that throws leaves its job to be re-delivered. */
  work<T>(slots: number, handler: (job: QueuedJob<T>) => Promise<void>): Promise<void>;
  /** No new job is taken; resolves when the handlers running now have ended. */
  stopTaking(): Promise<void>;
  cancel(ids: string[]): Promise<void>;
  /** Each job's state (jobs pg-boss no longer holds are left out). */
  states(ids: string[]): Promise<Map<string, JobState>>;
  /** Jobs waiting for a worker. */
  depth(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts pg-boss (installing its schema on first use) and creates our queue. Processes starting
 * on a new database at once can meet in Postgres's catalog (a deadlock, a duplicate type): such a
 * start is tried again, as the warehouse's migrations are.
 */
async function startBoss(make: (Boss: typeof PgBoss) => PgBoss): Promise<PgBoss> {
  // Loaded here, not at import: every command imports this module, few open a queue.
  const { default: Boss } = await import("pg-boss");
  for (let attempt = 1; ; attempt++) {
    const boss = make(Boss);
    // pg-boss reports maintenance errors as events; unheard, an EventEmitter error would crash the process.
    boss.on("error", () => {});
    try {
      await boss.start();
      await boss.createQueue(CALLS_QUEUE).catch((err: unknown) => {
        // Two processes creating it at once: the loser finds it there.
        if (!/already exists|duplicate key/i.test(String(err))) throw err;
      });
      return boss;
    } catch (err) {
      await boss.stop({ graceful: false, wait: true, timeout: 2000 }).catch(() => {});
      if (attempt >= 5 || !(isDeadlock(err) || isCatalogRace(err))) throw err;
      await sleep(50 * attempt + Math.random() * 100);
    }
  }
}

/** Where pg-boss keeps its tables: its own schema beside the warehouse's (`pgboss` for the default one). */
export function queueSchema(target: WarehouseTarget): string {
  return queueServer(target).schema;
}

/** The warehouse's Postgres server, and pg-boss's schema there; refused for a SQLite warehouse. */
function queueServer(target: WarehouseTarget): { connectionString: string; schema: string } {
  const server = serverOf(target);
  if (!server) {
    throw new ConfigurationError(
      "workers need a Postgres warehouse (--db postgres://…): a SQLite warehouse runs every call in the process that runs it",
    );
  }
  const schema = server.schema ? `${server.schema}_pgboss` : "pgboss";
  if (schema.length > 63) {
    throw new ConfigurationError(
      `the warehouse schema "${server.schema}" is too long for workers: its queue schema "${schema}" passes Postgres's 63 characters; use a schema of at most 56`,
    );
  }
  return { connectionString: server.connectionString, schema };
}

/**
 * Opens (and on first use installs) the queue in the warehouse's Postgres database.
 *
 * @example const q = await openWorkQueue(warehouse.target); await q.enqueue([{ runId }], { leaseSeconds: 120 });
 */
export async function openWorkQueue(
  target: WarehouseTarget,
  o: { maintenanceSeconds?: number; pollSeconds?: number } = {},
): Promise<WorkQueue> {
  const { connectionString, schema } = queueServer(target);
  const boss = await startBoss(
    (Boss) =>
      new Boss({
        connectionString,
        schema,
        max: 4,
        application_name: "skillsync-queue",
        // Ours are plain queues: no cron, and expired leases found within seconds, not minutes.
        schedule: false,
        maintenanceIntervalSeconds: o.maintenanceSeconds ?? 5,
        monitorStateIntervalSeconds: 60,
      }),
  );
  const db = boss.getDb();
  const active = new Set<Promise<void>>();
  const pollingIntervalSeconds = o.pollSeconds ?? 0.5;
  return {
    schema,
    enqueue: (jobs, { leaseSeconds }) => enqueueJobs(boss, jobs, leaseSeconds),
    work: (slots, handler) => takeJobs(boss, { slots, pollingIntervalSeconds, active }, handler),
    async stopTaking() {
      await boss.offWork(CALLS_QUEUE);
      await Promise.allSettled([...active]);
    },
    async cancel(ids) {
      if (ids.length) await boss.cancel(CALLS_QUEUE, ids);
    },
    states: (ids) => jobStates(db, schema, ids),
    depth: () => boss.getQueueSize(CALLS_QUEUE),
    async close() {
      await boss.stop({ graceful: false, wait: true, timeout: 5000 });
    },
  };
}
