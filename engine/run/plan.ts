import type { Warehouse } from "../../connectors/warehouse/open.js";
import { listTables } from "../../connectors/warehouse/tables.js";
import { freshHashes } from "../../store/responses.js";
import { resolveInput, type SheetReader } from "../define/inputs.js";
import type { ParamValue } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../define/prices.js";
import { type CallFactory, callFactory, type Prepare, splitBatchValues } from "../extract/planned-calls.js";
import { partitionFresh } from "./item-reuse.js";
import { tablesMadeBy } from "./make-tables.js";
import { type ChainBound, chainBound, rowsAtMost, upstreamOf } from "./plan-chain.js";
import { type Compiled, compilePipelines } from "./prepare.js";
import { planWindowCalls, type WindowPlan } from "./windows/choose-windows.js";

export interface PipelinePlan {
  pipeline: string;
  skill: string;
  /** First-page calls (one per input value or batch). */
  calls: number;
  /** Of those, served from stored responses for 0 credits. */
  fromStore: number;
  /** Further pages, at most (pagination stops earlier when results end). */
  morePagesAtMost: number;
  /** Pages per first call at most (`paginate.maxPages`; 1 for a pipeline that does not page). */
  maxPages: number;
  /** Credits of the first-page calls to send. */
  credits: number;
  /** Credits if every page up to maxPages is needed. */
  creditsAtMost: number;
  inputs: number | undefined;
  /**
   * Fed by earlier pipelines of this run (an input query reads their tables): which, and the inputs,
   * calls and credits they can bring at most (null: unknown until they run). `creditsAtMost`
   * includes it.
   */
  dependsOn: ChainBound | undefined;
  /** Records its calls can bring at most (null: nothing in the file bounds them). */
  rowsAtMost: number | null;
  /** A few of the requests, as they would be sent. */
  sample: Record<string, unknown>[];
  /**
   * A batched pipeline whose answers split per item: identifiers asked for, those with a fresh
   * part in the store (loaded for 0 credits), and those the calls will pay for.
   */
  items?: { asked: number; fromStore: number; toPay: number };
  /** A pipeline with a `window:` block: every window of its range, what a run does with it, its calls and credits. */
  windows?: WindowPlan[];
}

/**
 * What a run would do, with nothing sent and nothing written: the calls per pipeline, which are
 * already stored, and the credits. SQL inputs read the warehouse as it is now, so a chained
 * pipeline's plan reflects what earlier pipelines have loaded so far, and a pipeline fed by earlier
 * ones of the same run is bounded by what they can bring (or said to be unknown), never planned
 * as 0 calls. The warehouse is neither migrated nor given tables: one no run has made yet (or
 * parts of one) is planned as the empty warehouse a run would start from — nothing stored, and an
 * input query naming a table the run would make reads nothing.
 */
export async function planPipelines(o: PlanOptions): Promise<{
  pipelines: PipelinePlan[];
  credits: number;
  creditsAtMost: number;
  /** Pipelines whose bound is unknown before the pipelines feeding them have run. */
  unbounded: string[];
}> {
  const compiled = compilePipelines(o.pipelines, o.params ?? {});
  const have = new Set(await listTables(o.warehouse));
  const notYetMade = tablesMadeBy(o.pipelines).filter((t) => !have.has(t));
  // Nothing is fresh in a store that is not there: as --refresh, but without asking it.
  if (o.refresh || !have.has("skillsync_responses")) for (const c of compiled) c.freshnessMs = 0;
  const ctx: PlanContext = { ...o, prices: o.prices ?? loadPrices(), have, notYetMade };
  const out: PipelinePlan[] = [];
  for (const c of compiled) {
    const earlier = out.map((plan, i) => ({ pipeline: compiled[i]!.pipeline, plan }));
    out.push(await planPipeline(ctx, c, earlier));
  }
  return {
    pipelines: out,
    credits: out.reduce((s, x) => s + x.credits, 0),
    creditsAtMost: out.reduce((s, x) => s + x.creditsAtMost, 0),
    unbounded: out.filter((x) => x.dependsOn && x.dependsOn.creditsAtMost === null).map((x) => x.pipeline),
  };
}

interface PlanOptions {
  warehouse: Warehouse;
  pipelines: LoadedPipeline[];
  params?: Record<string, ParamValue[]>;
  prices?: PriceTable | undefined;
  prepare: Prepare;
  sheet?: SheetReader | undefined;
  /** `--refresh`: nothing from the store, every call paid. */
  refresh?: boolean | undefined;
}

/** What every pipeline's plan reads: the options, the prices, and the warehouse's tables now. */
interface PlanContext extends PlanOptions {
  prices: PriceTable;
  have: ReadonlySet<string>;
  /** Tables the run would make that the warehouse does not have yet: an input query reads nothing there. */
  notYetMade: string[];
}

/** One pipeline's plan; `earlier` are the pipelines before it in the run, with their plans. */
async function planPipeline(
  o: PlanContext,
  c: Compiled,
  earlier: readonly { pipeline: LoadedPipeline; plan: PipelinePlan }[],
): Promise<PipelinePlan> {
  const p = c.pipeline;
  const values = await resolveInput(p, {
    warehouse: o.warehouse,
    params: c.params,
    sheet: o.sheet,
    notYetMade: o.notYetMade,
    // --refresh reaches `:fresh_since` too: inputs the query would skip as fresh are asked again.
    freshnessMs: o.refresh ? 0 : undefined,
  });
  const windowed = p.window
    ? await planWindowCalls(o.warehouse, c, values, o.prices, o.prepare, {
        refresh: o.refresh,
        recorded: o.have.has("skillsync_windows"),
      })
    : undefined;
  const factory = windowed?.factory ?? callFactory(p, c.params, o.prices, o.prepare);
  const items = await itemsToPay(o.warehouse, c, factory, values, o.refresh === true);
  const calls = windowed?.calls ?? factory.all(items ? items.toPay : values);
  const stored = windowed?.stored ?? (await storedHashes(o.warehouse, calls, c.freshnessMs));
  const credits = calls.reduce((s, x) => (stored.has(x.hash) ? s : s + x.credits), 0);
  const morePages = calls.length * (factory.maxPages - 1);
  const perCall = calls.length ? calls.reduce((s, x) => s + x.credits, 0) / calls.length : 0;
  const chain = chainOf(p, earlier, values?.length ?? 0, factory.maxPages, o.prices);
  return {
    pipeline: p.name,
    skill: p.skill,
    calls: calls.length,
    fromStore: calls.filter((x) => stored.has(x.hash)).length,
    morePagesAtMost: morePages,
    maxPages: factory.maxPages,
    credits,
    creditsAtMost: Math.max(credits + morePages * perCall, chain?.creditsAtMost ?? 0),
    inputs: values?.length,
    dependsOn: chain,
    rowsAtMost: chain
      ? p.batch && chain.inputsAtMost !== null
        ? chain.inputsAtMost
        : null
      : rowsAtMost(p, calls, factory.maxPages),
    sample: calls.slice(0, 3).map((x) => x.body),
    ...(items
      ? { items: { asked: items.asked, fromStore: items.fromStore, toPay: items.toPay.length } }
      : {}),
    ...(windowed ? { windows: windowed.windows } : {}),
  };
}

/** Which calls the store answers: one query per 500 calls, no stored body read. */
async function storedHashes(
  w: Warehouse,
  calls: readonly { hash: string }[],
  freshnessMs: number,
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < calls.length && freshnessMs > 0; i += 500) {
    const hashes = calls.slice(i, i + 500).map((x) => x.hash);
    for (const h of await freshHashes(w.db, hashes, freshnessMs)) stored.add(h);
  }
  return stored;
}

/** The bound earlier pipelines of the run put on one their tables feed; undefined when none does. */
function chainOf(
  p: LoadedPipeline,
  earlier: readonly { pipeline: LoadedPipeline; plan: PipelinePlan }[],
  inputsNow: number,
  maxPages: number,
  prices: PriceTable,
): ChainBound | undefined {
  const upstream = upstreamOf(
    p,
    earlier.map((e) => e.pipeline),
  ).map((u) => ({
    pipeline: u.name,
    rowsAtMost: earlier.find((e) => e.plan.pipeline === u.name)?.plan.rowsAtMost ?? null,
  }));
  return upstream.length ? chainBound(p, upstream, inputsNow, maxPages, prices) : undefined;
}

/**
 * What a plan's count of calls is. Only first pages can be planned: whether a next page follows is
 * in the answer before it, so a paging pipeline says how many more may come, and a run's count of
 * planned calls grows by each one it finds (`pagesFound`).
 *
 * @example plannedCallsText(3, 2) // "3 first-page call(s) planned; next pages are asked when answers show more: up to 3 more (at most 2 pages each)"
 */
export function plannedCallsText(calls: number, maxPages: number): string {
  if (calls === 0 || maxPages <= 1) return `${calls} call(s) planned`;
  return `${calls} first-page call(s) planned; next pages are asked when answers show more: up to ${calls * (maxPages - 1)} more (at most ${maxPages} pages each)`;
}

/** The identifiers a batched pipeline split per item would still pay for (undefined when it does not split). */
async function itemsToPay(
  w: Warehouse,
  c: Compiled,
  factory: CallFactory,
  values: string[] | undefined,
  refresh: boolean,
): Promise<{ asked: number; fromStore: number; toPay: string[] } | undefined> {
  if (!factory.split || !values) return undefined;
  const items = splitBatchValues(values);
  if (refresh || c.freshnessMs <= 0) return { asked: items.length, fromStore: 0, toPay: items };
  // No run is resumed by a plan: nothing counts as this run's own.
  const { fresh, rest } = await partitionFresh(w, factory, factory.split, items, {
    freshnessMs: c.freshnessMs,
    runId: "(plan)",
  });
  return { asked: items.length, fromStore: fresh.length, toPay: rest };
}
