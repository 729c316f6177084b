import type { Kysely } from "kysely";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import { watchedKeys } from "../../../store/watches.js";
import { type KeyChange, matchChange, type Watcher } from "./match.js";

/** Watches that alert on the same changes (same columns and `when`): asked once for all of them. */
interface Condition {
  watches: Watcher[];
  /** Names of those that watch every key. */
  everyKey: string[];
}

/**
 * Changed key → the conditions one of its changes meets, each asked once for all the watches that
 * share it: most watches wait for something rare, and only keys that moved their way are then
 * looked up among the keys they name. `open` watches (those that can alert on a child table's rows,
 * not read yet) are kept for every changed key.
 */
export function byCondition(
  watches: readonly Watcher[],
  changes: ReadonlyMap<string, readonly KeyChange[]>,
  open: (w: Watcher) => boolean = () => false,
): Map<string, Condition[]> {
  const groups = new Map<string, Condition>();
  for (const w of watches) {
    const sig = JSON.stringify([w.spec.columns, w.spec.when, open(w)]);
    const g = groups.get(sig) ?? { watches: [], everyKey: [] };
    g.watches.push(w);
    if (w.spec.allKeys) g.everyKey.push(w.name);
    groups.set(sig, g);
  }
  const conditions = [...groups.values()].map((g) => ({
    g,
    spec: g.watches[0]!.spec,
    always: open(g.watches[0]!),
  }));
  const out = new Map<string, Condition[]>();
  for (const [key, list] of changes) {
    const met: Condition[] = [];
    for (const { g, spec, always } of conditions) if (always || meets(spec, list)) met.push(g);
    if (met.length) out.set(key, met);
  }
  return out;
}

/** Whether one of the changes meets the condition: a plain loop, run per changed key and condition. */
function meets(spec: Watcher["spec"], list: readonly KeyChange[]): boolean {
  for (const c of list) if (matchChange(spec, c) !== null) return true;
  return false;
}

/**
 * Of each key's candidate watches, those that look at it (every key, or a key they name) → their
 * names. A key of several columns (`multi`) is named by its JSON text, or by any one of its values.
 */
export async function interestedWatches(
  db: Kysely<AnyDB>,
  candidates: ReadonlyMap<string, readonly Condition[]>,
  multi: boolean,
): Promise<Map<string, string[]>> {
  const conditionOf = new Map<string, Condition>();
  const named: string[] = [];
  for (const c of new Set([...candidates.values()].flat())) {
    for (const w of c.watches) {
      conditionOf.set(w.name, c);
      if (!w.spec.allKeys) named.push(w.name);
    }
  }
  const parts = (key: string): string[] => (multi ? [key, ...(JSON.parse(key) as string[])] : [key]);
  const keyParts = new Map([...candidates.keys()].map((k) => [k, parts(k)]));
  const found = await watchedKeys(db, named, [...new Set([...keyParts.values()].flat())]);
  // From the keys each watch names to the watches of each key: one pass over what was found.
  const byPart = new Map<string, string[]>();
  for (const [watch, names] of found)
    for (const p of names) byPart.get(p)?.push(watch) ?? byPart.set(p, [watch]);
  const out = new Map<string, string[]>();
  for (const [key, met] of candidates) {
    const hits = new Set(keyParts.get(key)!.flatMap((p) => byPart.get(p) ?? []));
    const names = [
      ...met.flatMap((c) => c.everyKey),
      ...[...hits].filter((h) => met.includes(conditionOf.get(h)!)),
    ];
    if (names.length) out.set(key, names);
  }
  return out;
}
