import { recordWindows } from "../../../store/windows-done.js";
import type { DateWindow, WindowRange } from "../../define/windows/date-range.js";
import { windowEnded } from "../../define/windows/window-state.js";
import type { PlannedCall } from "../../extract/planned-calls.js";
import type { Compiled } from "../prepare.js";
import type { CallProgress } from "../run-pipeline.js";
import type { RunSession } from "../session.js";
import type { WindowCalls } from "./windowed-calls.js";

/** Records windows whose calls all loaded (those that have ended: today's is asked again). */
export type Recorder = (done: { window: DateWindow; calls: number }[]) => Promise<void>;

export function recorder(s: RunSession, c: Compiled, range: WindowRange): Recorder {
  return async (done) => {
    const now = new Date();
    const rows = done
      .filter((d) => windowEnded(d.window, now))
      .map((d) => ({
        key: d.window.key,
        pipeline: c.pipeline.name,
        start: d.window.start,
        end: d.window.end,
        askedThrough: range.end,
        runId: s.runId,
        calls: d.calls,
      }));
    if (rows.length) await recordWindows(s.warehouse.db, rows);
  };
}

/**
 * Counts each window's calls still to load — its first calls, and each next page as it is planned
 * — and records the windows whose count reaches 0. A call that fails, is refused or is never made
 * (a stop) keeps its window open: it is asked again by the next run.
 */
export function windowProgress(list: WindowCalls[], record: Recorder): CallProgress {
  const open = new Map(list.map((l) => [l.window.key, { window: l.window, left: l.calls.count, calls: 0 }]));
  const of = (call: PlannedCall) => (call.window ? open.get(call.window.key) : undefined);
  return {
    paged(next) {
      const w = of(next);
      if (w) w.left++;
    },
    async loaded(calls) {
      const done: { window: DateWindow; calls: number }[] = [];
      for (const call of calls) {
        const w = of(call);
        if (!w) continue;
        w.left--;
        w.calls++;
        if (w.left === 0) done.push(w);
      }
      if (done.length) await record(done);
    },
  };
}
