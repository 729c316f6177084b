import type { Warehouse } from "../../connectors/warehouse/open.js";
import { callFactory, type Prepare } from "./calls.js";
import { resolveInput, type SheetReader } from "./inputs.js";
import { freshHashes } from "./ledger.js";
import type { LoadedPipeline } from "./load.js";
import type { ParamValue } from "./params.js";
import { loadPrices, type PriceTable } from "./prices.js";
import { preparePipelines } from "./runner.js";

export interface PipelinePlan {
  pipeline: string;
  skill: string;
  /** First-page calls (one per input value or batch). */
  calls: number;
  /** Of those, served from stored responses for 0 credits. */
  fromStore: number;
  /** Further pages, at most (pagination stops earlier when results end). */
  morePagesAtMost: number;
  /** Credits of the first-page calls to send. */
  credits: number;
  /** Credits if every page up to maxPages is needed. */
  creditsAtMost: number;
  inputs: number | undefined;
  /** A few of the requests, as they would be sent. */
  sample: Record<string, unknown>[];
}

/**
 * What a run would do, with nothing sent: the calls per pipeline, which are already stored, and
 * the credits. SQL inputs read the warehouse as it is now, so a chained pipeline's plan reflects
 * what earlier pipelines have loaded so far.
 */
export async function planPipelines(o: {
  warehouse: Warehouse;
  pipelines: LoadedPipeline[];
  params?: Record<string, ParamValue[]>;
  prices?: PriceTable | undefined;
  prepare: Prepare;
  sheet?: SheetReader | undefined;
}): Promise<{ pipelines: PipelinePlan[]; credits: number; creditsAtMost: number }> {
  const compiled = await preparePipelines(o.warehouse, o.pipelines, o.params ?? {});
  const prices = o.prices ?? loadPrices();
  const out: PipelinePlan[] = [];
  for (const c of compiled) {
    const p = c.pipeline;
    const values = await resolveInput(p, { warehouse: o.warehouse, params: c.params, sheet: o.sheet });
    const factory = callFactory(p, c.params, prices, o.prepare);
    const calls = factory.all(values);
    // Which calls the store answers: one query per 500 calls, no stored body read.
    const stored = new Set<string>();
    for (let i = 0; i < calls.length; i += 500) {
      const hashes = calls.slice(i, i + 500).map((x) => x.hash);
      for (const h of await freshHashes(o.warehouse.db, hashes, c.freshnessMs)) stored.add(h);
    }
    const fromStore = calls.filter((x) => stored.has(x.hash)).length;
    const credits = calls.reduce((s, x) => (stored.has(x.hash) ? s : s + x.credits), 0);
    const morePages = calls.length * (factory.maxPages - 1);
    const perCall = calls.length ? calls.reduce((s, x) => s + x.credits, 0) / calls.length : 0;
    out.push({
      pipeline: p.name,
      skill: p.skill,
      calls: calls.length,
      fromStore,
      morePagesAtMost: morePages,
      credits,
      creditsAtMost: credits + morePages * perCall,
      inputs: values?.length,
      sample: calls.slice(0, 3).map((x) => x.body),
    });
  }
  return {
    pipelines: out,
    credits: out.reduce((s, x) => s + x.credits, 0),
    creditsAtMost: out.reduce((s, x) => s + x.creditsAtMost, 0),
  };
}
