/**
 * Responses shaped as the API sends them, generated in-process by the emulator's own generators
 * (not timed): marketplace search pages (20 products each) and patent bibliography batches (100
 * patents each, with applicants, inventors, assignees, classifications, priority claims and
 * citations as child rows).
 */
import { marketplaceSearch } from "../emulator/generate/marketplace.js";
import { knownPublicationNumber } from "../emulator/generate/patent-numbers.js";
import { patentIdentifierData } from "../emulator/generate/patent-records.js";
import { Rng } from "../emulator/random.js";

export interface BenchResponse {
  /** What the request carried (the mapping reads `$request.…` from it). */
  request: Record<string, unknown>;
  data: unknown;
}

export function marketplacePages(pages: number): BenchResponse[] {
  const out: BenchResponse[] = [];
  for (let i = 0; i < pages; i++) {
    const request = { keyword: `bench keyword ${Math.floor(i / 5)}`, page: (i % 5) + 1 };
    out.push({ request, data: marketplaceSearch(request) });
  }
  return out;
}

export function patentBatches(batches: number, perBatch = 100): BenchResponse[] {
  const rng = new Rng(7);
  const seen = new Set<string>();
  const out: BenchResponse[] = [];
  for (let b = 0; b < batches; b++) {
    const numbers: string[] = [];
    while (numbers.length < perBatch) {
      const pn = knownPublicationNumber(rng);
      if (!seen.has(pn)) {
        seen.add(pn);
        numbers.push(pn);
      }
    }
    const request = { patentNumber: numbers.join(",") };
    out.push({ request, data: patentIdentifierData("patent-core-bibliography", request) });
  }
  return out;
}
