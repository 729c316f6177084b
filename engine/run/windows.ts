import type { Ceiling } from "../../store/budget.js";
import { finishLoad } from "../../store/loads.js";
import { latestJobFor } from "../../store/report-job-lookup.js";
import { recordWindows } from "../../store/windows.js";
import { resolveInput, staticInput } from "../define/inputs.js";
import { type DateWindow, type WindowRange, windowEnded } from "../define/windows.js";
import type { CallPlan, PlannedCall } from "../extract/planned-calls.js";
import { callsOverWindows, type WindowCalls } from "../extract/windowed-calls.js";
import { runReportCalls } from "../reports/index.js";
import { loadOf } from "./loads.js";
import type { Compiled } from "./prepare.js";
import { mergeSeen, type QualitySeen } from "./quality.js";
import {
  type CallProgress,
  finishPipeline,
  pipelineCeilings,
  type RunEnv,
  runCalls,
} from "./run-pipeline.js";
import type { RunSession } from "./session.js";
import { chooseWindows } from "./window-plan.js";

/** Records windows whose calls all loaded (those that have ended: today's is asked again). */
type Recorder = (done: { window: DateWindow; calls: number }[]) => Promise<void>;

/**
 * A pipeline with a `window:` block: its range cut into windows, each asked once. Windows recorded
 * done (`skillsync_windows`) are skipped; the lookback's windows are asked again with no stored
 * answer reused (they are asked to see what changed); the others are asked as any call is (a fresh
 * stored answer reused). A window is recorded once every call of it (pages included) is loaded,
 * after the load's commit: a kill between leaves it unrecorded, and the resumed run finds its
 * answers stored and loaded (this run's own, whatever the freshness) — nothing is paid or loaded
 * twice. Report pipelines create, poll and download each window's report as any report.
 */
export async function runWindowedPipeline(s: RunSession, env: RunEnv, c: Compiled): Promise<void> {
  const p = c.pipeline;
  const known = staticInput(p, c.params);
  const values =
    known === "dynamic"
      ? await resolveInput(p, {
          warehouse: s.warehouse,
          params: c.params,
          sheet: env.sheet,
          freshnessMs: c.freshnessMs,
        })
      : known;
  const { range, chosen } = await chooseWindows(s.warehouse, c, values, {
    runId: s.runId,
    refresh: env.refresh,
    recorded: true,
  });
  const of = (ask: string) => chosen.filter((x) => x.ask === ask).map((x) => x.window);
  const again = of("again");
  const fresh = of("new");
  const skipped = chosen.length - again.length - fresh.length;
  s.report(
    `${p.name}: ${chosen.length} window(s) ${range.start}..${range.end} by ${range.step}: ${fresh.length} to ask, ${again.length} asked again (lookback), ${skipped} done`,
  );
  const record = recorder(s, c, range);
  const ceilings = pipelineCeilings(s, p);
  // The lookback's windows first: no stored answer stands in for asking them again.
  const groups = [
    { windows: again, c: { ...c, freshnessMs: 0 } },
    { windows: fresh, c },
  ];
  const seen: QualitySeen[] = [];
  // A `replace` pipeline drops earlier runs' rows only when this run asked every window of its range.
  let complete = skipped === 0;
  for (const g of groups) {
    if (!g.windows.length || s.state.stop) continue;
    const factory = callsOverWindows(p, c.params, env.prices, env.client.prepare.bind(env.client), g.windows);
    const list = factory.byWindow(values, known !== "dynamic");
    if (p.report) {
      await reportWindows(s, env, g.c, list, ceilings, record);
      continue;
    }
    const calls = concat(list);
    s.counters.callsPlanned += calls.count;
    const out = await runCalls(
      s,
      env,
      g.c,
      factory,
      calls,
      ceilings,
      undefined,
      windowProgress(list, record),
    );
    seen.push(out.seen);
    complete = out.complete && complete;
  }
  // A report pipeline ends as runPipeline ends one: its load finished.
  if (p.report) await finishLoad(s.warehouse, await loadOf(s, p.name));
  else await finishPipeline(s, env, c, { seen: mergeSeen(seen), complete });
}

function concat(list: WindowCalls[]): CallPlan {
  return {
    count: list.reduce((n, l) => n + l.calls.count, 0),
    *[Symbol.iterator]() {
      for (const l of list) yield* l.calls;
    },
  };
}

function recorder(s: RunSession, c: Compiled, range: WindowRange): Recorder {
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
function windowProgress(list: WindowCalls[], record: Recorder): CallProgress {
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

/**
 * A report pipeline's windows: their create calls run as any report's (created once, polled, each
 * part loaded once), except those whose report this very run already loaded (a kill came before the
 * window was recorded); then each window whose every report is done is recorded. (`replace` is the
 * report's own: a window's newest report replaces its earlier ones.)
 */
async function reportWindows(
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
