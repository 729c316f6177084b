import type { Warehouse } from "../../connectors/warehouse/open.js";
import { freshStored, loadedRequests, storedResponses } from "../../store/responses.js";
import type { InFlight } from "../../store/single-flight.js";
import { awaitFlight } from "../extract/await-flight.js";
import { type ItemSplit, itemKeys, joinParts } from "../extract/item-parts.js";
import { type CallFactory, type PlannedCall, splitBatchValues } from "../extract/planned-calls.js";
import type { ItemsTaken } from "../extract/reservations.js";
import type { Answer } from "../load/load-response.js";
import type { CallRun } from "./call-run.js";
import { failWithoutSending } from "./reserve-or-share.js";

type Data = Record<string, unknown>;

/** Each item's key (the hash of the request asking for it alone), formed from one prepared request. */
function itemHashes(factory: CallFactory, split: ItemSplit, items: string[]): string[] {
  if (!items.length) return [];
  const probe = factory.forItems([items[0]!]);
  return itemKeys(probe.skill, split, probe.body, items).hashes;
}

/**
 * Splits a batched pipeline's items into those whose part is fresh in the store, those this run
 * stored before it was interrupted (`own`: loaded again, not counted as reused), and those to ask
 * for: one query per 500 items.
 */
export async function partitionFresh(
  w: Warehouse,
  factory: CallFactory,
  split: ItemSplit,
  items: string[],
  rule: { freshnessMs: number; runId: string },
): Promise<{ fresh: string[]; own: string[]; rest: string[] }> {
  const hashes = itemHashes(factory, split, items);
  const found = new Map<string, boolean>();
  for (let i = 0; i < hashes.length; i += 500) {
    const some = await freshStored(w.db, hashes.slice(i, i + 500), rule.freshnessMs, rule.runId);
    for (const f of some) found.set(f.hash, f.own);
  }
  const out = { fresh: [] as string[], own: [] as string[], rest: [] as string[] };
  items.forEach((item, i) => {
    const own = found.get(hashes[i]!);
    (own === undefined ? out.rest : own ? out.own : out.fresh).push(item);
  });
  return out;
}

/**
 * The items a resumed run loaded before it was interrupted: those of the requests whose answers
 * its ledger marks loaded. Their parts are its own, but loading them again would count each key a
 * second time in the load's counters (a history table's `unchanged`).
 */
export async function itemsLoaded(
  w: Warehouse,
  split: ItemSplit,
  o: { runId: string; pipeline: string },
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const request of await loadedRequests(w.db, o.runId, o.pipeline)) {
    const value = request[split.member];
    if (typeof value === "string") for (const item of splitBatchValues([value])) out.add(item);
  }
  return out;
}

/** What reused items bring: answers to load for 0 credits, how many items, and what asking would have cost. */
interface Reused {
  kind: "cached" | "shared";
  answers: Answer[];
  items: number;
  creditsSaved: number;
}

/**
 * The stored parts of these items (read in groups of 500) as answers that load them as the batches
 * asking for them would have: parts of one fetch together (their `observedAt` is that fetch's), at
 * most a batch's worth each. `kind`: `cached` for parts found in the store, `shared` for parts
 * another run's call brought. `got`: the items whose part was there.
 */
async function partAnswers(
  w: Warehouse,
  o: { factory: CallFactory; split: ItemSplit; size: number },
  items: string[],
  hashes: string[],
  kind: "cached" | "shared",
): Promise<Reused & { got: Set<string> }> {
  const byFetch = new Map<string, { item: string; data: Data }[]>();
  const found: string[] = [];
  for (let i = 0; i < hashes.length; i += 500) {
    const read = await storedResponses(w.db, hashes.slice(i, i + 500));
    for (let j = i; j < Math.min(hashes.length, i + 500); j++) {
      const stored = read.get(hashes[j]!);
      if (!stored) continue;
      const list = byFetch.get(stored.receivedAt) ?? [];
      list.push({ item: items[j]!, data: stored.data });
      byFetch.set(stored.receivedAt, list);
      found.push(items[j]!);
    }
  }
  const answers: Answer[] = [];
  let creditsSaved = 0;
  for (const [receivedAt, list] of byFetch) {
    for (let i = 0; i < list.length; i += o.size) {
      const chunk = list.slice(i, i + o.size);
      const call = o.factory.forItems(chunk.map((x) => x.item));
      creditsSaved += call.credits;
      const data = joinParts(
        o.split,
        chunk.map((x) => x.data),
      );
      answers.push({ call, data, receivedAt, ledger: { kind } });
    }
  }
  return { kind, answers, items: found.length, creditsSaved, got: new Set(found) };
}

/** How the taken items of a batch ended for this run. */
interface Settled {
  /** Answers loading the parts found in the store or brought by another run's call. */
  reused: Reused[];
  /** Items still to pay for: their other call ended without their part, or a stored part was gone. */
  remaining: string[];
  /** Items whose other call was sent and lost after it may have been billed, or is still in flight after the time-out. */
  unresolved: { items: string[]; kind: "ambiguous" | "timeout"; runId: string }[];
  stopped: boolean;
}

/**
 * Settles the items a reservation found taken: fresh parts are read from the store; items another
 * live run is fetching are awaited (one wait per call of that run), then read as that call stored
 * them. Whatever did not come stays to be paid for by this run, in a smaller batch.
 */
async function settleTaken(
  w: Warehouse,
  o: { factory: CallFactory; split: ItemSplit; size: number },
  call: PlannedCall,
  taken: ItemsTaken,
  stopped: () => boolean,
): Promise<Settled> {
  const { items, hashes } = call.parts!;
  const itemOf = new Map(hashes.map((h, i) => [h, items[i]!]));
  const out: Settled = { reused: [], remaining: [], unresolved: [], stopped: false };
  const fresh = await partAnswers(
    w,
    o,
    taken.fresh.map((h) => itemOf.get(h)!),
    taken.fresh,
    "cached",
  );
  out.reused.push(fresh);
  const gotFresh = fresh.got;
  const byCall = new Map<number, { flight: InFlight; hashes: string[] }>();
  for (const [h, flight] of taken.inFlight) {
    const entry = byCall.get(flight.callId) ?? { flight, hashes: [] };
    entry.hashes.push(h);
    byCall.set(flight.callId, entry);
  }
  for (const { flight, hashes: its } of byCall.values()) {
    const end = await awaitFlight(w, { ...flight, hash: its[0]! }, { stopped });
    const list = its.map((h) => itemOf.get(h)!);
    if (end.kind === "stopped") {
      out.stopped = true;
      return out;
    }
    if (end.kind === "ambiguous" || end.kind === "timeout") {
      out.unresolved.push({ items: list, kind: end.kind, runId: flight.runId });
      continue;
    }
    const answered = end.kind === "answered";
    const shared = await partAnswers(w, o, answered ? list : [], answered ? its : [], "shared");
    out.reused.push(shared);
    out.remaining.push(...list.filter((item) => !shared.got.has(item)));
  }
  // Items nobody had, and fresh parts no longer readable: this run asks for them.
  const claimed = new Set([...taken.fresh, ...taken.inFlight.keys()]);
  out.remaining.push(...items.filter((_, i) => !claimed.has(hashes[i]!)));
  out.remaining.push(...taken.fresh.map((h) => itemOf.get(h)!).filter((item) => !gotFresh.has(item)));
  return out;
}

/** Counts reused answers in the run's counters; `own` parts (a resumed run's) saved nothing. */
function count(run: CallRun, r: Reused, own = false): void {
  const c = run.counters;
  c.callsPlanned += r.answers.length;
  if (r.kind === "cached") c.callsCached += r.answers.length;
  else c.callsShared += r.answers.length;
  if (own) return;
  c.itemsReused += r.items;
  c.creditsSaved += r.creditsSaved;
}

/**
 * Loads the parts of items found fresh when the run was planned (a thousand items at a time, so a
 * long list is never held whole); items whose part could no longer be read (a pruned store) are
 * asked for after all, in batches queued before the planned calls.
 */
export async function reuseFreshItems(
  run: CallRun,
  items: { fresh: string[]; own: string[] },
): Promise<void> {
  const ir = run.itemRun;
  if (!ir) return;
  const missing: string[] = [];
  for (const [list, own] of [
    [items.fresh, false],
    [items.own, true],
  ] as const) {
    for (let i = 0; i < list.length; i += 1000) {
      const chunk = list.slice(i, i + 1000);
      const hashes = itemHashes(ir.factory, ir.split, chunk);
      const r = await partAnswers(run.warehouse, ir, chunk, hashes, "cached");
      missing.push(...chunk.filter((item) => !r.got.has(item)));
      count(run, r, own);
      for (const a of r.answers) await run.answers.push(a);
    }
  }
  for (let i = 0; i < missing.length; i += ir.size) {
    run.counters.callsPlanned++;
    run.calls.addFound(ir.factory.forItems(missing.slice(i, i + ir.size)));
  }
}

/** The answers that load a batch's taken items, and the smaller batch left to pay for, if any. */
export interface TakenItems {
  answers: Answer[];
  retry: PlannedCall | undefined;
}

/**
 * A batch some of whose items were taken when it was to be reserved: those items are loaded from
 * the store or awaited from the other run; items whose other call may have been billed without an
 * answer fail without being sent (as a call of the same request would). Undefined when the run
 * stopped while waiting.
 */
export async function takeItems(
  run: CallRun,
  call: PlannedCall,
  taken: ItemsTaken,
): Promise<TakenItems | undefined> {
  const ir = run.itemRun!;
  const ps = run.pipelineStop;
  const settled = await settleTaken(run.warehouse, ir, call, taken, () => run.state.stop || ps.stop);
  if (settled.stopped) return undefined;
  for (const r of settled.reused) count(run, r);
  for (const u of settled.unresolved) {
    const message =
      u.kind === "ambiguous"
        ? `run ${u.runId} asked for ${u.items.length} of this batch's identifiers (${u.items[0]}…) and lost its answer after it may have been billed; not sent again so as not to pay twice: check the account's usage, then run again`
        : `run ${u.runId} has had ${u.items.length} of this batch's identifiers (${u.items[0]}…) in flight for over 10 minutes; not sent so as not to pay twice: run again once that run has ended`;
    const record = {
      runId: run.runId,
      pipeline: ir.pipeline,
      skill: call.skill,
      requestHash: ir.factory.forItems(u.items).hash,
      credits: 0,
    };
    await failWithoutSending(
      run,
      record,
      u.kind === "ambiguous" ? "SHARED_AMBIGUOUS" : "SHARED_TIMEOUT",
      message,
    );
    ps.failed++;
  }
  const retry = settled.remaining.length ? ir.factory.forItems(settled.remaining) : undefined;
  // The batch as planned is replaced by these answers and the smaller batch.
  if (!retry) run.counters.callsPlanned--;
  return { answers: settled.reused.flatMap((r) => r.answers), retry };
}
