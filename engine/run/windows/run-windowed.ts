import { resolveInput, staticInput } from "../../define/inputs.js";
import type { CallPlan } from "../../extract/planned-calls.js";
import { endLoad } from "../load-ids.js";
import type { Compiled } from "../prepare.js";
import { mergeSeen, type QualitySeen } from "../quality.js";
import { finishPipeline, pipelineCeilings, type RunEnv, runCalls } from "../run-pipeline.js";
import type { RunSession } from "../session.js";
import { chooseWindows } from "./choose-windows.js";
import { reportWindows } from "./report-windows.js";
import { recorder, windowProgress } from "./window-progress.js";
import { callsOverWindows, type WindowCalls } from "./windowed-calls.js";

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
  const { range, again, fresh, skipped } = await windowsToAsk(s, env, c, values);
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
    const progress = windowProgress(list, record);
    const out = await runCalls({ s, env, c: g.c, factory, calls, ceilings, progress });
    seen.push(out.seen);
    complete = out.complete && complete;
  }
  // A report pipeline ends as runPipeline ends one: its load finished.
  if (p.report) await endLoad(s, p);
  else await finishPipeline(s, env, c, { seen: mergeSeen(seen), complete });
}

/** Which of the range's windows this run asks (new ones, and again the lookback's), said in the run's report. */
async function windowsToAsk(s: RunSession, env: RunEnv, c: Compiled, values: string[] | undefined) {
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
    `${c.pipeline.name}: ${chosen.length} window(s) ${range.start}..${range.end} by ${range.step}: ${fresh.length} to ask, ${again.length} asked again (lookback), ${skipped} done`,
  );
  return { range, again, fresh, skipped };
}

function concat(list: WindowCalls[]): CallPlan {
  return {
    count: list.reduce((n, l) => n + l.calls.count, 0),
    *[Symbol.iterator]() {
      for (const l of list) yield* l.calls;
    },
  };
}
