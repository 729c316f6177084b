import { type LoadedPipeline, loadPipeline } from "../../../engine/define/pipeline-file.js";
import { loadPrices, type PriceTable } from "../../../engine/define/prices.js";

/** What a run in a child process (or in-process, the same way) does. */
export interface ChildSpec {
  db: string;
  baseUrl: string;
  pipelines: string[];
  params: Record<string, string[]>;
  concurrency: number;
  maxCredits?: number | undefined;
  /** Credits per call by slug (the emulator must charge the same). */
  prices?: Record<string, number> | undefined;
  /** Report polling in milliseconds instead of the file's seconds (the file, hence the run key, is kept). */
  fastPollMs?: number | undefined;
  headersTimeoutMs?: number | undefined;
  /** When set (epoch ms), the child waits until then before opening the warehouse: processes spawned together begin at once. */
  startAt?: number | undefined;
  /** `--refresh`: nothing reused from the store (freshness 0). */
  refresh?: boolean | undefined;
}

export function pipelinesOf(spec: Pick<ChildSpec, "pipelines" | "fastPollMs">): LoadedPipeline[] {
  return spec.pipelines.map((name) => {
    const p = loadPipeline(name);
    if (!p.report || !spec.fastPollMs) return p;
    const ms = `${spec.fastPollMs}ms`;
    return { ...p, report: { ...p.report, poll: { initial: ms, max: ms, factor: 1, timeout: "60s" } } };
  });
}

export function pricesOf(spec: Pick<ChildSpec, "prices">): PriceTable {
  const prices = new Map(loadPrices());
  for (const [slug, perCall] of Object.entries(spec.prices ?? {})) prices.set(slug, { perCall });
  return prices;
}
