import type { ParamValues } from "../../define/params.js";
import type { LoadedPipeline } from "../../define/pipeline-file.js";
import type { PriceTable } from "../../define/prices.js";
import { type DateWindow, resolveWindows, windowVars } from "../../define/windows/date-range.js";
import {
  type CallFactory,
  type CallPlan,
  callFactory,
  type PlannedCall,
  type Prepare,
} from "../../extract/planned-calls.js";

/** One window's first calls, formed lazily. */
export interface WindowCalls {
  window: DateWindow;
  calls: CallPlan;
}

/** The calls of a pipeline with a `window:` block: every window's, each call tagged with its window. */
export interface WindowedFactory extends CallFactory {
  /** Each window's first calls (validated unless `checked`), formed as they are taken. */
  byWindow(values: string[] | undefined, checked?: boolean): WindowCalls[];
}

/**
 * A pipeline's calls over date windows: each window's requests rendered with its
 * `{{window.start}}`, `{{window.end}}` (and `:yyyymmdd`) values, each call tagged with its window
 * (`PlannedCall.window`), and a next page asked within the window of the call before it. Batches of
 * a windowed pipeline are not split per item.
 *
 * @example callsOverWindows(p, params, prices, prepare, windows).all(["lidar"]).map((c) => c.window?.start)
 */
export function callsOverWindows(
  p: LoadedPipeline,
  params: ParamValues,
  prices: PriceTable,
  prepare: Prepare,
  windows: DateWindow[],
): WindowedFactory {
  const factories = new Map<string, CallFactory>();
  const inner = (w: DateWindow): CallFactory => {
    const id = `${w.start}/${w.end}`;
    let f = factories.get(id);
    if (!f) {
      f = callFactory(p, { ...params, ...windowVars(w) }, prices, prepare);
      factories.set(id, f);
    }
    return f;
  };
  const tag = (call: PlannedCall, w: DateWindow): PlannedCall => ({ ...call, window: w });
  const tagged = (plan: CallPlan, w: DateWindow): CallPlan => ({
    count: plan.count,
    *[Symbol.iterator]() {
      for (const call of plan) yield tag(call, w);
    },
  });
  const byWindow = (values: string[] | undefined, checked = false): WindowCalls[] =>
    windows.map((w) => ({ window: w, calls: tagged(inner(w).initial(values, checked), w) }));
  return {
    maxPages: callFactory(p, params, prices, prepare).maxPages,
    split: undefined,
    forItems() {
      throw new Error("a windowed pipeline does not split its batches per item");
    },
    byWindow,
    initial(values, checked) {
      const list = byWindow(values, checked);
      return {
        count: list.reduce((n, l) => n + l.calls.count, 0),
        *[Symbol.iterator]() {
          for (const l of list) yield* l.calls;
        },
      };
    },
    all(values) {
      return windows.flatMap((w) =>
        inner(w)
          .all(values)
          .map((call) => tag(call, w)),
      );
    },
    next(call, data) {
      const w = call.window;
      const next = w ? inner(w).next(call, data) : undefined;
      return next && w ? tag(next, w) : undefined;
    },
  };
}

/**
 * The factory of a pipeline's calls: over every window of its range when it has a `window:` block
 * (whose values are checked here: a wrong one throws before anything is sent), else its own.
 */
export function pipelineCallFactory(
  p: LoadedPipeline,
  params: ParamValues,
  prices: PriceTable,
  prepare: Prepare,
): CallFactory {
  if (!p.window) return callFactory(p, params, prices, prepare);
  return callsOverWindows(p, params, prices, prepare, resolveWindows(p, params).windows);
}
