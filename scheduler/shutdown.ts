import type { Warehouse } from "../connectors/warehouse/open.js";
import { finishSlot, type Owner, updateTick } from "./state.js";

/** Waits for the promises to settle, at most `ms`; true when they all did. */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<boolean> {
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
    const now = new Date().toISOString();
    const runs = await w.db
      .selectFrom("skillsync_runs")
      .select(["id", "pipelines"])
      .where("status", "=", "running")
      .where("trigger", "=", "schedule")
      .where("host", "=", me.host)
      .where("pid", "=", me.pid)
      .execute();
    const ids = runs
      .filter((r) => {
        const names = typeof r.pipelines === "string" ? JSON.parse(r.pipelines) : r.pipelines;
        return Array.isArray(names) && names.length === 1 && names[0] === t.pipeline;
      })
      .map((r) => String(r.id));
    if (ids.length) {
      await w.db
        .updateTable("skillsync_runs")
        .set({ status: "interrupted", finished_at: now, stop_reason: LEFT_REASON })
        .where("id", "in", ids)
        .where("status", "=", "running")
        .execute();
      await w.db
        .updateTable("skillsync_calls")
        .set({ outcome: "interrupted", finished_at: now })
        .where("run_id", "in", ids)
        .where("outcome", "=", "reserved")
        .execute();
      marked.push(...ids);
    }
    await updateTick(w, t.pipeline, t.tickAt, {
      runId: ids[0] ?? null,
      runStatus: "interrupted",
      note: LEFT_REASON,
      finished: true,
    });
    await finishSlot(w, {
      pipeline: t.pipeline,
      tickAt: t.tickAt,
      runId: ids[0] ?? null,
      status: "interrupted",
      failed: undefined,
      maxFailures: t.maxFailures,
    });
  }
  return marked;
}
