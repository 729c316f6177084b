import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { freshHashes } from "../../../store/responses.js";
import { windowRecords } from "../../../store/windows-done.js";
import type { PriceTable } from "../../define/prices.js";
import { type DateWindow, resolveWindows, type WindowRange } from "../../define/windows/date-range.js";
import { keyWindows, windowState } from "../../define/windows/window-state.js";
import type { PlannedCall, Prepare } from "../../extract/planned-calls.js";
import type { Compiled } from "../prepare.js";
import { callsOverWindows, type WindowedFactory } from "./windowed-calls.js";

/** What a run does with a window: ask it (`new`), ask it again for the lookback (`again`), or skip it (`done`). */
type WindowAsk = "new" | "again" | "done";

export interface ChosenWindow {
  window: DateWindow;
  ask: WindowAsk;
}

/**
 * A pipeline's windows for these params and input values, and what a run does with each: windows
 * recorded done are skipped, except those the lookback asks again; `runId` (a run, not a plan):
 * windows this very run recorded (a resumed run's earlier part) are done whatever else holds.
 * `recorded: false` (a warehouse without the table yet): nothing is recorded.
 */
export async function chooseWindows(
  w: Warehouse,
  c: Compiled,
  values: string[] | undefined,
  o: { runId?: string | undefined; refresh?: boolean | undefined; recorded: boolean },
): Promise<{ range: WindowRange; chosen: ChosenWindow[] }> {
  const range = resolveWindows(c.pipeline, c.params);
  const windows = keyWindows(c.pipeline, c.params, values, range.windows);
  const records = o.recorded
    ? await windowRecords(
        w.db,
        windows.map((x) => x.key),
      )
    : new Map();
  const rule = { rangeEnd: range.end, lookbackDays: range.lookbackDays, runId: o.runId, refresh: o.refresh };
  return {
    range,
    chosen: windows.map((window) => ({ window, ask: windowState(window, records.get(window.key), rule) })),
  };
}

/** One window in a plan: its days, what a run would do with it, and its first calls and credits. */
export interface WindowPlan {
  start: string;
  end: string;
  ask: WindowAsk;
  /** First-page calls (0 for a window done). */
  calls: number;
  /** Of those, answered from the store for 0 credits (never for a window asked again). */
  fromStore: number;
  credits: number;
}

/**
 * A windowed pipeline's plan: the first calls of the windows a run would ask, which the store
 * answers (those of new windows only: a window asked again pays again), and every window listed
 * with its calls and credits, done ones as skipped. `c.freshnessMs` is 0 when nothing may be reused.
 */
export async function planWindowCalls(
  w: Warehouse,
  c: Compiled,
  values: string[] | undefined,
  prices: PriceTable,
  prepare: Prepare,
  o: { refresh?: boolean | undefined; recorded: boolean },
): Promise<{ factory: WindowedFactory; calls: PlannedCall[]; stored: Set<string>; windows: WindowPlan[] }> {
  const { chosen } = await chooseWindows(w, c, values, o);
  const asked = chosen.filter((x) => x.ask !== "done");
  const factory = callsOverWindows(
    c.pipeline,
    c.params,
    prices,
    prepare,
    asked.map((x) => x.window),
  );
  const calls = factory.all(values);
  const renew = new Set(asked.filter((x) => x.ask === "again").map((x) => x.window.key));
  const reusable = calls.filter((x) => !renew.has(x.window!.key)).map((x) => x.hash);
  const stored = new Set<string>();
  for (let i = 0; i < reusable.length && c.freshnessMs > 0; i += 500) {
    for (const h of await freshHashes(w.db, reusable.slice(i, i + 500), c.freshnessMs)) stored.add(h);
  }
  const byWindow = new Map<string, PlannedCall[]>();
  for (const call of calls) {
    const list = byWindow.get(call.window!.key) ?? [];
    list.push(call);
    byWindow.set(call.window!.key, list);
  }
  const windows = chosen.map(({ window, ask }) => {
    const own = byWindow.get(window.key) ?? [];
    const fromStore = own.filter((x) => !renew.has(window.key) && stored.has(x.hash));
    return {
      start: window.start,
      end: window.end,
      ask,
      calls: own.length,
      fromStore: fromStore.length,
      credits: own.reduce((n, x) => n + x.credits, 0) - fromStore.reduce((n, x) => n + x.credits, 0),
    };
  });
  return { factory, calls, stored, windows };
}
