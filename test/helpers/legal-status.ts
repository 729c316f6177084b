import { knownPublicationNumber } from "../../emulator/generate/patent-numbers.js";
import { canonicalJson, legalStatusAt } from "../../emulator/index.js";
import { Rng } from "../../emulator/random.js";

/**
 * `count` distinct publication numbers the emulator knows and has published by `date` (the same
 * ones for the same seed), for loads of patent legal status.
 */
export function publishedPatents(count: number, date: string, seed = 30): string[] {
  const rng = new Rng(seed);
  const out = new Set<string>();
  while (out.size < count) {
    const pn = knownPublicationNumber(rng);
    if (legalStatusAt(pn, date)) out.add(pn);
  }
  return [...out];
}

/** Those of `patents` whose legal status (or events) the emulator answers differently at `to` than at `from`. */
export function changedBetween(patents: readonly string[], from: string, to: string): string[] {
  return patents.filter(
    (pn) => canonicalJson(legalStatusAt(pn, from)) !== canonicalJson(legalStatusAt(pn, to)),
  );
}
