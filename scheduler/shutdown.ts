import type { Warehouse } from "../connectors/warehouse/open.js";
import { interruptOwnRuns } from "../store/runs.js";
import { finishSlot, type Owner, updateTick } from "../store/schedule-state.js";

/** Waits for the promises to settle, at most `ms`; true when they all did. */
async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<boolean> {
  const all = Promise.allSettled([...promises]).then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface InFlightTick {
  pipeline: string;
  /** Where its tick and slot are kept (scheduleKey). */
  key: string;
  tickAt: Date;
  maxFailures: number;
}

const LEFT_REASON = "the scheduler stopped before the run ended (grace period over)";

/**
 * Last resort at shutdown, for runs that did not end within the grace period even after their
 * calls were cut: marks them interrupted (a later tick resumes them), their reserved calls
 * interrupted (as a crashed run's would be at resume), and frees their run slots.
 * Returns the ids of the runs it marked.
 */
export async function interruptLeftovers(w: Warehouse, me: Owner, ticks: InFlightTick[]): Promise<string[]> {
  const marked: string[] = [];
  for (const t of ticks) {
    const ids = await interruptOwnRuns(w, me, t.pipeline, LEFT_REASON);
    marked.push(...ids);
    await updateTick(w, t.key, t.tickAt, {
      runId: ids[0] ?? null,
      runStatus: "interrupted",
      note: LEFT_REASON,
      finished: true,
    });
    await finishSlot(w, {
      pipeline: t.key,
      tickAt: t.tickAt,
      runId: ids[0] ?? null,
      status: "interrupted",
      failed: undefined,
      maxFailures: t.maxFailures,
    });
  }
  return marked;
}

/** After the grace period, calls in flight are cut; the runs then get this long to record that. */
const SETTLE_MS = 3000;

/**
 * Lets the ticks in flight end: within `graceMs` on their own (their runs send no new call once
 * `soft` is aborted), then within SETTLE_MS once `hard` has cut their calls in flight; the runs
 * still going after that are marked (interruptLeftovers). Returns the ids of the runs marked.
 */
export async function drainTicks(
  w: Warehouse,
  me: Owner,
  inFlight: ReadonlyMap<Promise<void>, InFlightTick>,
  aborts: { soft: AbortController; hard: AbortController },
  graceMs: number,
): Promise<string[]> {
  aborts.soft.abort();
  if (await settleWithin(inFlight.keys(), graceMs)) return [];
  aborts.hard.abort(new Error("the scheduler's grace period ended"));
  if (await settleWithin(inFlight.keys(), SETTLE_MS)) return [];
  return interruptLeftovers(w, me, [...inFlight.values()]);
}
