import { hostname } from "node:os";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { ownerAlive } from "./runs.js";

/** Workers beat every 5 s; one silent for this long is dead, whatever its pid says. */
const WORKER_STALE_MS = 30_000;

/**
 * A worker's row: it has not stopped, its process lives (ownerAlive: its pid on this host, else a
 * recent heartbeat) and it beat lately — a container restarted in place keeps its host name and
 * may give node the same pid, which must not pass for the dead worker.
 */
export function workerAlive(row: {
  host: unknown;
  pid: unknown;
  heartbeat_at: unknown;
  stopped_at: unknown;
}): boolean {
  const beat = Date.parse(String(row.heartbeat_at));
  return !row.stopped_at && Date.now() - beat < WORKER_STALE_MS && ownerAlive(row);
}

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  concurrency: number;
  runId: string | null;
  callsInFlight: number;
  startedAt: string;
  heartbeatAt: string;
}

export async function registerWorker(w: Warehouse, o: { id: string; concurrency: number }): Promise<void> {
  const now = new Date().toISOString();
  await w.db
    .insertInto("skillsync_workers")
    .values({
      id: o.id,
      host: hostname(),
      pid: process.pid,
      concurrency: o.concurrency,
      run_id: null,
      calls_in_flight: 0,
      started_at: now,
      heartbeat_at: now,
    })
    .execute();
}

/** The worker's heartbeat, with the run it works for now and its calls in flight. */
export async function beatWorker(
  w: Warehouse,
  id: string,
  o: { runId: string | null; callsInFlight: number },
): Promise<void> {
  await w.db
    .updateTable("skillsync_workers")
    .set({ heartbeat_at: new Date().toISOString(), run_id: o.runId, calls_in_flight: o.callsInFlight })
    .where("id", "=", id)
    .execute();
}

export async function stopWorker(w: Warehouse, id: string): Promise<void> {
  await w.db
    .updateTable("skillsync_workers")
    .set({ stopped_at: new Date().toISOString(), run_id: null, calls_in_flight: 0 })
    .where("id", "=", id)
    .execute();
}

/** The workers that live now, longest running first. */
export async function liveWorkers(w: Warehouse): Promise<WorkerRow[]> {
  const rows = await w.db
    .selectFrom("skillsync_workers")
    .selectAll()
    .where("stopped_at", "is", null)
    .orderBy("started_at")
    .execute();
  return rows
    .filter((r) => workerAlive(r as Parameters<typeof workerAlive>[0]))
    .map((r) => ({
      id: String(r.id),
      host: String(r.host),
      pid: Number(r.pid),
      concurrency: Number(r.concurrency),
      runId: r.run_id === null ? null : String(r.run_id),
      callsInFlight: Number(r.calls_in_flight),
      startedAt: String(r.started_at),
      heartbeatAt: String(r.heartbeat_at),
    }));
}
