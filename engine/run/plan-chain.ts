import type { InputSource } from "../../schema/pipeline.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { estimateCredits, type PriceTable } from "../define/prices.js";
import type { PlannedCall } from "../extract/planned-calls.js";

/** Request members that cap how many records one call returns (a page size). */
const PAGE_SIZE_MEMBERS = ["num", "pageSize", "size", "limit", "perPage", "count"];

/** What a later pipeline of the same run may get from an earlier one. */
export interface ChainBound {
  /** The earlier pipelines of this run whose tables the input's query reads. */
  dependsOn: string[];
  /** Input values at most once they have run (null: unknown until they run). */
  inputsAtMost: number | null;
  /** Calls and credits those inputs can need at most, every page included (null: unknown). */
  callsAtMost: number | null;
  creditsAtMost: number | null;
}

/** The tables an input's SQL sources read, as written in the query. */
function sqlSources(p: LoadedPipeline): string[] {
  if (!p.input) return [];
  const sources: InputSource[] = Array.isArray(p.input.from) ? p.input.from : [p.input.from];
  return sources.flatMap((s) => ("sql" in s ? [s.sql] : []));
}

/** The earlier pipelines whose records table a pipeline's input query names. */
export function upstreamOf(p: LoadedPipeline, earlier: readonly LoadedPipeline[]): LoadedPipeline[] {
  const queries = sqlSources(p);
  return earlier.filter((e) => queries.some((q) => new RegExp(`\\b${e.records.table}\\b`, "i").test(q)));
}

/**
 * The most records a pipeline's calls can bring: one per identifier of a batch, or the page size
 * a request asks for (`num: 10`) per call; null when nothing in the file bounds it.
 */
export function rowsAtMost(
  p: LoadedPipeline,
  calls: readonly PlannedCall[],
  maxPages: number,
): number | null {
  if (p.batch) return calls.reduce((n, c) => n + c.items, 0);
  let total = 0;
  for (const c of calls) {
    const size = PAGE_SIZE_MEMBERS.map((m) => Number(c.body[m])).find((n) => Number.isInteger(n) && n > 0);
    if (size === undefined) return null;
    total += size * maxPages;
  }
  return total;
}

/**
 * A pipeline fed by earlier ones of the same run: its inputs at most (what the warehouse gives
 * now, plus every row the earlier ones can add) and the calls and credits they can need. Without
 * it a chained pipeline plans 0 calls before the run and then spends.
 */
export function chainBound(
  p: LoadedPipeline,
  upstream: readonly { pipeline: string; rowsAtMost: number | null }[],
  inputsNow: number,
  maxPages: number,
  prices: PriceTable,
): ChainBound {
  const dependsOn = upstream.map((u) => u.pipeline);
  const unknown = upstream.some((u) => u.rowsAtMost === null);
  if (unknown) return { dependsOn, inputsAtMost: null, callsAtMost: null, creditsAtMost: null };
  const inputs = inputsNow + upstream.reduce((n, u) => n + (u.rowsAtMost ?? 0), 0);
  if (!p.batch) {
    const calls = inputs * maxPages;
    return {
      dependsOn,
      inputsAtMost: inputs,
      callsAtMost: calls,
      creditsAtMost: calls * estimateCredits(prices, p.skill, 1),
    };
  }
  const full = Math.floor(inputs / p.batch.size);
  const rest = inputs % p.batch.size;
  const perPage =
    full * estimateCredits(prices, p.skill, p.batch.size) +
    (rest ? estimateCredits(prices, p.skill, rest) : 0);
  return {
    dependsOn,
    inputsAtMost: inputs,
    callsAtMost: (full + (rest ? 1 : 0)) * maxPages,
    creditsAtMost: perPage * maxPages,
  };
}
