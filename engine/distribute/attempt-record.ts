import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import { type Attempt, type AttemptState, saveAttempt, saveAttemptOver } from "../../store/run-jobs.js";
import type { CarriedCounters } from "../../store/runs.js";
import type { BatchOutcome } from "./batch-job.js";

const SAVE_EVERY_MS = 250;

/**
 * How one attempt at a batch keeps its row in skillsync_run_jobs: saved as it goes (so a worker
 * killed mid-batch leaves what it paid for to the attempt taking over), inside each load's
 * transaction (rows and their count commit together), one save at a time and the last after every
 * earlier one.
 */
export function attemptRecord(
  w: Warehouse,
  jobId: string,
  workerId: string,
  outcome: (complete: boolean) => BatchOutcome,
) {
  let dirty = false;
  let saving = Promise.resolve();
  const save = (state: AttemptState, complete = false): Promise<void> => {
    const saved = saving.then(() =>
      saveAttemptOver<BatchOutcome>(
        w,
        jobId,
        workerId,
        (stored) => loadedAtLeast(outcome(complete), stored),
        state,
      ),
    );
    saving = saved.catch(() => {});
    return saved;
  };
  const timer = setInterval(() => {
    if (!dirty) return;
    dirty = false;
    save("active").catch(() => {});
  }, SAVE_EVERY_MS);
  return {
    /** The counters changed: saved within a quarter of a second. */
    changed(): void {
      dirty = true;
    },
    /** Saves now (after any save under way); `done` or `released` ends the attempt. */
    save(state: AttemptState, complete = false): Promise<void> {
      clearInterval(timer);
      return save(state, complete);
    },
    /** For RunSession.alongLoad: the counters as they are once the load commits. */
    alongLoad(db: Kysely<AnyDB>, added: { calls: number; rows: number; rejected: number }): Promise<void> {
      const o = outcome(false);
      const c = o.counters;
      return saveAttempt({ db }, jobId, workerId, {
        ...o,
        counters: {
          ...c,
          callsDone: c.callsDone + added.calls,
          rowsWritten: c.rowsWritten + added.rows,
          rowsRejected: c.rowsRejected + added.rejected,
        },
      });
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}

/**
 * The outcome with the counts loads own (calls done, rows written, records rejected) at least those
 * stored. A load saves them in its own transaction, and the in-memory counters catch up only once
 * it has committed: a snapshot taken in between must not write them back. They only grow.
 */
function loadedAtLeast(o: BatchOutcome, stored: BatchOutcome | undefined): BatchOutcome {
  const s = stored?.counters;
  if (!s) return o;
  const c = o.counters;
  return {
    ...o,
    counters: {
      ...c,
      callsDone: Math.max(c.callsDone, s.callsDone),
      rowsWritten: Math.max(c.rowsWritten, s.rowsWritten),
      rowsRejected: Math.max(c.rowsRejected, s.rowsRejected),
    },
  };
}

/** What the attempts taken over had paid for, reused and loaded (as a resumed run carries its earlier part's). */
export function carriedFrom(taken: Attempt<BatchOutcome>[]): CarriedCounters {
  const out: CarriedCounters = {
    callsCached: 0,
    callsShared: 0,
    creditsSpent: 0,
    rowsWritten: 0,
    rowsRejected: 0,
    itemsReused: 0,
    creditsSaved: 0,
  };
  for (const a of taken) {
    const c = a.outcome?.counters;
    if (!c) continue;
    for (const k of Object.keys(out) as (keyof CarriedCounters)[]) out[k] += c[k];
  }
  return out;
}
