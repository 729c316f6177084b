import type { Ceiling } from "../../../store/budget.js";
import { latestJobFor } from "../../../store/report-job-lookup.js";
import type { DateWindow } from "../../define/windows/date-range.js";
import type { PlannedCall } from "../../extract/planned-calls.js";
import { runReportCalls } from "../../reports/index.js";
import type { Compiled } from "../prepare.js";
import type { RunEnv } from "../run-pipeline.js";
import type { RunSession } from "../session.js";
import type { Recorder } from "./window-progress.js";
import type { WindowCalls } from "./windowed-calls.js";

/**
 * A report pipeline's windows: their create calls run as any report's (created once, polled, each
 * part loaded once), except those whose report this very run already loaded (a kill came before the
 * window was recorded); then each window whose every report is done is recorded. (`replace` is the
 * report's own: a window's newest report replaces its earlier ones.)
 */
export async function reportWindows(
  s: RunSession,
  env: RunEnv,
  c: Compiled,
  list: WindowCalls[],
  ceilings: Ceiling[],
  record: Recorder,
): Promise<void> {
  // Loaded by this run, or (as a report job counts as asked) by another within the freshness.
  const loaded = async (call: PlannedCall, ownOnly: boolean) => {
    const job = await latestJobFor(s.warehouse, call.hash);
    if (job?.status !== "done") return false;
    if (job.runId === s.runId) return true;
    return !ownOnly && Date.now() - Date.parse(job.finishedAt ?? job.updatedAt) <= c.freshnessMs;
  };
  const calls: PlannedCall[] = [];
  for (const l of list) for (const call of l.calls) if (!(await loaded(call, true))) calls.push(call);
  s.counters.callsPlanned += calls.length;
  const { runId, counters, failures, state, report, signal } = s;
  await runReportCalls({
    ...c,
    runId,
    counters,
    failures,
    state,
    report,
    signal,
    calls,
    ceilings,
    prices: env.prices,
    warehouse: s.warehouse,
    client: env.client,
  });
  const done: { window: DateWindow; calls: number }[] = [];
  for (const l of list) {
    let all = l.calls.count > 0;
    for (const call of l.calls) {
      if (!all) break;
      all = await loaded(call, false);
    }
    if (all) done.push({ window: l.window, calls: l.calls.count });
  }
  await record(done);
}
