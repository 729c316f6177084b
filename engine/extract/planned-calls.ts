import { requestHash } from "../../core/hash.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { billedItems, estimateCredits, type PriceTable } from "../define/prices.js";
import type { DateWindow } from "../define/windows/date-range.js";
import { checkFirsts, type Prepare } from "./check-requests.js";
import { batchBody, type FirstBodies, type FirstBody, firstBodies } from "./first-bodies.js";
import { type ItemKeys, type ItemSplit, itemKeys, itemSplitOf } from "./item-parts.js";
import { maxPagesOf, nextPageBody } from "./next-page.js";

// Where the rest of the engine has always found them.
export type { Prepare } from "./check-requests.js";
export { packBatches, splitBatchValues } from "./first-bodies.js";

export interface PlannedCall {
  skill: string;
  body: Record<string, unknown>;
  hash: string;
  credits: number;
  /** The input value this call is for (undefined for batches and static calls). */
  input: string | undefined;
  /** Identifiers in the batch (1 for other calls), for per-identifier prices. */
  items: number;
  /** 0 for the first page. */
  pageIndex: number;
  /** Records received so far for this input (pagination stops at `total`). */
  fetched: number;
  /** A batch whose answer splits per item: its items and each one's key (item-parts.ts). */
  parts?: ItemKeys | undefined;
  /** The date window this call asks for (a pipeline with a `window:` block; engine/run/windows/windowed-calls.ts). */
  window?: DateWindow | undefined;
}

/** A pipeline's first calls, made one at a time as the runner takes them: a run of 100,000 inputs never holds 100,000 requests. */
export interface CallPlan extends Iterable<PlannedCall> {
  count: number;
}

export interface CallFactory {
  /**
   * Validates the request of every input value (throws one ValidationError naming each bad value,
   * before anything is sent) and returns the calls to make, formed lazily. `checked`: these
   * values passed that check already (preflight), so the pass is not made twice.
   */
  initial(values: string[] | undefined, checked?: boolean): CallPlan;
  /** Every first call, formed now (plans and previews). */
  all(values: string[] | undefined): PlannedCall[];
  /** The next page after `call` answered `data`, or undefined when the pages end. */
  next(call: PlannedCall, data: unknown): PlannedCall | undefined;
  maxPages: number;
  /** Set when the pipeline's batches split per item: each item is paid once within its freshness. */
  split: ItemSplit | undefined;
  /** The batch call asking for exactly these items (at most one batch's worth). */
  forItems(items: string[]): PlannedCall;
}

/** Forms a pipeline's calls: static members, one call per input value or per batch, and pages. */
export function callFactory(
  p: LoadedPipeline,
  params: ParamValues,
  prices: PriceTable,
  prepare: Prepare,
): CallFactory {
  const maxPages = maxPagesOf(p, params);
  const split = itemSplitOf(p);
  const make = (f: FirstBody, pageIndex: number, fetched: number): PlannedCall => {
    const prepared = prepare(p.skill, f.body);
    // Priced as billed: the items counted in the body that will be sent, not the values packed.
    const billed = Math.max(f.items, billedItems(p.skill, prepared.body));
    return {
      skill: p.skill,
      body: prepared.body,
      hash: requestHash(p.skill, prepared.body),
      credits: estimateCredits(prices, p.skill, billed),
      input: f.input,
      items: billed,
      pageIndex,
      fetched,
      parts: split && f.group ? itemKeys(p.skill, split, prepared.body, f.group) : undefined,
    };
  };
  const first = (list: FirstBodies, i: number): PlannedCall => make(list.at(i), 0, 0);
  return {
    maxPages,
    split,
    forItems: (group) =>
      make({ body: batchBody(p, params, group), input: undefined, items: group.length, group }, 0, 0),
    initial(values, checked = false) {
      const list = firstBodies(p, params, values);
      if (!checked) checkFirsts(p, prepare, values, list);
      return {
        count: list.count,
        *[Symbol.iterator]() {
          for (let i = 0; i < list.count; i++) yield first(list, i);
        },
      };
    },
    all(values) {
      const list = firstBodies(p, params, values);
      checkFirsts(p, prepare, values, list);
      return Array.from({ length: list.count }, (_, i) => first(list, i));
    },
    next(call, data) {
      const page = nextPageBody(p, params, maxPages, call, data);
      return (
        page &&
        make({ body: page.body, input: call.input, items: call.items }, call.pageIndex + 1, page.fetched)
      );
    },
  };
}
