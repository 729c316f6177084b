import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import type { CreditCeilingError } from "../../core/errors.js";
import { type Asked, askInGroups } from "../../core/group-commit.js";
import { type Ceiling, ceilingError, reserveCredits, tryReserveCredits } from "../../store/budget.js";
import { type CallRecord, insertCall, insertReserved } from "../../store/calls.js";
import { claimItems, lookupItemClaims } from "../../store/item-flights.js";
import { reserveWholeGroup } from "../../store/reserve-whole-group.js";
import { type StoredResponse, storedResponses } from "../../store/responses.js";
import {
  abandonCalls,
  type Claims,
  type FreshRule,
  type InFlight,
  lookupClaims,
  sharesInFlight,
} from "../../store/single-flight.js";

/**
 * A reserved call's ledger id; or the fresh stored answer that makes the call needless; or the
 * same request in flight in another live run, whose answer the caller awaits (single-flight.ts).
 */
export type Reserved =
  | { callId: number }
  | { stored: StoredResponse }
  | { inFlight: InFlight }
  | { itemsTaken: ItemsTaken };

/**
 * Items of a batch that are not to be paid for by this call (keys: item hashes): a fresh stored
 * part, or fetched right now by another live run's call. The caller takes those and reserves the
 * rest as a smaller batch.
 */
export interface ItemsTaken {
  fresh: string[];
  inFlight: Map<string, InFlight>;
}

/** A call asking to be reserved. */
interface Asking {
  record: CallRecord;
  /** A batch split per item: its item hashes, claimed with the call (item-flights.ts). */
  items: string[] | undefined;
}

type Waiting = Asked<Asking, Reserved>;

/** What every group of one pipeline's reservations is reserved under. */
interface ReserveRule {
  w: Warehouse;
  ceilings: Ceiling[];
  fresh: FreshRule | undefined;
}

const NO_CLAIMS: Claims = { fresh: [], inFlight: new Map(), abandoned: [] };

/**
 * Reserves calls in groups: the calls that ask while one reservation transaction runs are reserved
 * together in the next (group commit, core/group-commit.ts). Each call still gets its credits held
 * against every ceiling and its `reserved` ledger row, durably, before it is sent — in one commit
 * for the group instead of one per call. A call a ceiling would pass is refused alone
 * (CreditCeilingError); the others of its group are reserved. With `fresh`, the group first looks,
 * in the same transaction, for fresh stored answers and for the same requests reserved by other
 * live runs (one statement for the group): such a call is not reserved. Where the driver is
 * synchronous (SQLite) the usual group (none of those, all of it fits) is reserved in one
 * synchronous transaction (reserve-whole-group.ts).
 *
 * @example
 * const { reserve } = reservations(warehouse, ceilings, { freshnessMs: 0, runId });
 * const r = await reserve({ runId, pipeline, skill, requestHash, credits: 1 }); // { callId }: send it
 */
export function reservations(w: Warehouse, ceilings: Ceiling[], fresh?: FreshRule) {
  const rule: ReserveRule = { w, ceilings, fresh };
  const { ask, idle } = askInGroups<Asking, Reserved>({
    maxGroup: 64,
    commit: (group) => reserveGroupOf(rule, group),
  });
  return {
    /** `items`: the item hashes of a batch split per item, claimed with it (when `fresh` shares flights). */
    reserve: (record: CallRecord, items?: string[]) =>
      ask({ record, items: items?.length ? items : undefined }),
    /** Resolves when no reservation waits or runs: loading can take the database without delaying a call. */
    idle,
  };
}

/** One group's reservation: wholly at once where it can be, else through the general path. */
async function reserveGroupOf(rule: ReserveRule, group: Waiting[]): Promise<void> {
  // Items to claim take the general path, where their flights are looked up.
  const whole = group.some((g) => g.item.items)
    ? undefined
    : await reserveWholly(
        rule,
        group.map((g) => g.item.record),
      );
  if (whole) {
    for (const [i, g] of group.entries()) g.resolve({ callId: whole.ids[i]! });
    return;
  }
  await reserveInParts(rule, group);
}

/**
 * The general path, in one transaction: what is stored or in flight elsewhere is looked up
 * (alone among runs deciding the same, `serialize`), the rest reserved call by call if need be.
 */
async function reserveInParts(rule: ReserveRule, group: Waiting[]): Promise<void> {
  const { w, fresh } = rule;
  const hashes = [...new Set(group.map((g) => g.item.record.requestHash))];
  const itemHashes = group.flatMap((g) => g.item.items ?? []);
  const { claims, items, toReserve, ids } = await w.transaction(async (tx) => {
    const shares = sharesInFlight(fresh);
    if (shares) await w.adapter.serialize(tx.db, "reserve");
    const claims = fresh ? await lookupClaims(tx.db, hashes, fresh) : NO_CLAIMS;
    const items = shares && itemHashes.length ? await lookupItemClaims(tx.db, itemHashes, fresh) : NO_CLAIMS;
    // A dead run's reservation is taken over: this group reserves the call anew.
    await abandonCalls(tx.db, [...claims.abandoned, ...items.abandoned]);
    const taken = new Set([...claims.fresh, ...claims.inFlight.keys()]);
    const takenItems = new Set([...items.fresh, ...items.inFlight.keys()]);
    const toReserve = group.filter(
      (g) => !taken.has(g.item.record.requestHash) && !g.item.items?.some((h) => takenItems.has(h)),
    );
    const ids = toReserve.length ? await reserveGroup(tx.db, rule.ceilings, toReserve) : [];
    for (const [i, g] of toReserve.entries()) {
      const id = ids[i];
      if (g.item.items && typeof id === "number") await claimItems(tx.db, id, g.item.items);
    }
    return { claims, items, toReserve, ids };
  });
  toReserve.forEach((g, i) => {
    const r = ids[i]!;
    if (typeof r === "number") g.resolve({ callId: r });
    else g.reject(r);
  });
  const reserved = new Set(toReserve);
  await answerTaken(
    w,
    group.filter((g) => !reserved.has(g)),
    claims,
    items,
  );
}

/** The calls of a group not reserved: each gets its stored answer, the flight to await, or its items taken. */
async function answerTaken(
  w: Warehouse,
  notReserved: Waiting[],
  claims: Claims,
  items: Claims,
): Promise<void> {
  // Read after the commit: a stored answer is replaced, never removed.
  const stored = await storedResponses(w.db, claims.fresh);
  for (const g of notReserved) {
    const hash = g.item.record.requestHash;
    const answer = stored.get(hash);
    const flight = claims.inFlight.get(hash);
    if (answer) g.resolve({ stored: answer });
    else if (flight) g.resolve({ inFlight: flight });
    else if (claims.fresh.includes(hash))
      g.reject(new Error(`the stored answer of ${hash} could not be read`));
    else if (g.item.items) g.resolve({ itemsTaken: itemsTakenOf(g.item.items, items) });
  }
}

/**
 * The one-transaction path for the usual group where the driver is synchronous (SQLite);
 * undefined elsewhere (Postgres) or when it does not apply.
 */
async function reserveWholly(
  rule: ReserveRule,
  records: CallRecord[],
): Promise<{ ids: number[] } | undefined> {
  const { w, ceilings, fresh } = rule;
  const driver = w.adapter.synchronous;
  if (!driver) return undefined;
  // Holding Kysely's one connection: no other statement can run inside the driver's transaction.
  return w.db.connection().execute(async () => reserveWholeGroup(w.db, driver, ceilings, records, fresh));
}

/**
 * Reserves one call on its own transaction: credits against every ceiling, its `reserved` ledger
 * row, and `along` (a report's job row) with them, or none of it.
 */
export function reserveAlone(
  w: Warehouse,
  ceilings: Ceiling[],
  record: CallRecord,
  along?: (trx: Kysely<AnyDB>) => Promise<void>,
): Promise<number> {
  return w.db.transaction().execute(async (trx) => {
    await reserveCredits(trx, ceilings, record.credits);
    const id = await insertCall(trx, record, "reserved");
    await along?.(trx);
    return id;
  });
}

/** Which of a batch's items the lookup found taken. */
function itemsTakenOf(items: string[], claims: Claims): ItemsTaken {
  const inFlight = new Map<string, InFlight>();
  for (const h of items) {
    const flight = claims.inFlight.get(h);
    if (flight) inFlight.set(h, flight);
  }
  const fresh = new Set(claims.fresh);
  return { fresh: items.filter((h) => fresh.has(h)), inFlight };
}

/** Each call's ledger id, or the error refusing it. */
async function reserveGroup(
  trx: Kysely<AnyDB>,
  ceilings: Ceiling[],
  group: Waiting[],
): Promise<(number | CreditCeilingError)[]> {
  const out: (number | CreditCeilingError | undefined)[] = group.map(() => undefined);
  const total = group.reduce((s, g) => s + g.item.record.credits, 0);
  // The whole group at once when it fits (the common case: one statement on Postgres, budget.ts); else call by call.
  const together = group.length > 1 && (await tryReserveCredits(trx, ceilings, total)) === undefined;
  if (!together) {
    for (const [i, g] of group.entries()) {
      const passed = await tryReserveCredits(trx, ceilings, g.item.record.credits);
      if (passed) out[i] = ceilingError(passed, g.item.record.credits);
    }
  }
  const granted = group.flatMap((g, i) => (out[i] === undefined ? [{ g, i }] : []));
  if (granted.length) {
    const ids = await insertReserved(
      trx,
      granted.map(({ g }) => g.item.record),
    );
    for (const { g, i } of granted) out[i] = ids.get(g.item.record.requestHash)!.shift()!;
  }
  return out as (number | CreditCeilingError)[];
}
