import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import type { CreditCeilingError } from "../../core/errors.js";
import { waiters } from "../../core/waiters.js";
import { type Ceiling, ceilingError, tryReserveCredits } from "../../store/budget.js";
import { type CallRecord, insertReserved } from "../../store/calls.js";
import { claimItems, lookupItemClaims } from "../../store/item-flights.js";
import { reserveWholeGroup } from "../../store/reserve-sqlite.js";
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

interface Waiting {
  record: CallRecord;
  /** A batch split per item: its item hashes, claimed with the call (item-flights.ts). */
  items: string[] | undefined;
  resolve(r: Reserved): void;
  reject(err: unknown): void;
}

const NO_CLAIMS: Claims = { fresh: [], inFlight: new Map(), abandoned: [] };

/**
 * Reserves calls in groups: the calls that ask while one reservation transaction runs are reserved
 * together in the next (group commit). Each call still gets its credits held against every ceiling
 * and its `reserved` ledger row, durably, before it is sent — in one commit for the group instead
 * of one per call. A call a ceiling would pass is refused alone (CreditCeilingError); the others of
 * its group are reserved. With `fresh`, the group first looks, in the same transaction, for fresh
 * stored answers and for the same requests reserved by other live runs (one statement for the
 * group): such a call is not reserved. Where the driver is synchronous (SQLite) the usual group
 * (none of those, all of it fits) is reserved in one synchronous transaction (reserve-sqlite.ts).
 *
 * @example
 * const { reserve } = reservations(warehouse, ceilings, { freshnessMs: 0, runId });
 * const r = await reserve({ runId, pipeline, skill, requestHash, credits: 1 }); // { callId }: send it
 */
export function reservations(w: Warehouse, ceilings: Ceiling[], fresh?: FreshRule) {
  const queue: Waiting[] = [];
  let running = false;
  const idle = waiters();

  async function pump(): Promise<void> {
    while (queue.length) {
      // Calls asking in the same turn of the event loop join the group.
      await new Promise<void>((resume) => setImmediate(resume));
      const group = queue.splice(0, 64);
      try {
        // Items to claim take the general path, where their flights are looked up.
        const whole = group.some((g) => g.items)
          ? undefined
          : await reserveWholly(group.map((g) => g.record));
        if (whole) {
          for (const [i, g] of group.entries()) g.resolve({ callId: whole.ids[i]! });
          continue;
        }
        await reserveInParts(group);
      } catch (err) {
        for (const g of group) g.reject(err);
      }
    }
    running = false;
    idle.wakeAll();
  }

  /**
   * The general path, in one transaction: what is stored or in flight elsewhere is looked up
   * (alone among runs deciding the same, `serialize`), the rest reserved call by call if need be.
   */
  async function reserveInParts(group: Waiting[]): Promise<void> {
    const hashes = [...new Set(group.map((g) => g.record.requestHash))];
    const itemHashes = group.flatMap((g) => g.items ?? []);
    const { claims, items, toReserve, ids } = await w.transaction(async (tx) => {
      const shares = sharesInFlight(fresh);
      if (shares) await w.adapter.serialize(tx.db, "reserve");
      const claims = fresh ? await lookupClaims(tx.db, hashes, fresh) : NO_CLAIMS;
      const items =
        shares && itemHashes.length ? await lookupItemClaims(tx.db, itemHashes, fresh) : NO_CLAIMS;
      // A dead run's reservation is taken over: this group reserves the call anew.
      await abandonCalls(tx.db, [...claims.abandoned, ...items.abandoned]);
      const taken = new Set([...claims.fresh, ...claims.inFlight.keys()]);
      const takenItems = new Set([...items.fresh, ...items.inFlight.keys()]);
      const toReserve = group.filter(
        (g) => !taken.has(g.record.requestHash) && !g.items?.some((h) => takenItems.has(h)),
      );
      const ids = toReserve.length ? await reserveGroup(tx.db, ceilings, toReserve) : [];
      for (const [i, g] of toReserve.entries()) {
        const id = ids[i];
        if (g.items && typeof id === "number") await claimItems(tx.db, id, g.items);
      }
      return { claims, items, toReserve, ids };
    });
    toReserve.forEach((g, i) => {
      const r = ids[i]!;
      if (typeof r === "number") g.resolve({ callId: r });
      else g.reject(r);
    });
    // Read after the commit: a stored answer is replaced, never removed.
    const stored = await storedResponses(w.db, claims.fresh);
    const reserved = new Set(toReserve);
    for (const g of group) {
      if (reserved.has(g)) continue;
      const hash = g.record.requestHash;
      const answer = stored.get(hash);
      const flight = claims.inFlight.get(hash);
      if (answer) g.resolve({ stored: answer });
      else if (flight) g.resolve({ inFlight: flight });
      else if (claims.fresh.includes(hash))
        g.reject(new Error(`the stored answer of ${hash} could not be read`));
      else if (g.items) g.resolve({ itemsTaken: itemsTakenOf(g.items, items) });
    }
  }

  /**
   * The one-transaction path for the usual group where the driver is synchronous (SQLite);
   * undefined elsewhere (Postgres) or when it does not apply.
   */
  async function reserveWholly(records: CallRecord[]): Promise<{ ids: number[] } | undefined> {
    const driver = w.adapter.synchronous;
    if (!driver) return undefined;
    // Holding Kysely's one connection: no other statement can run inside the driver's transaction.
    return w.db.connection().execute(async () => reserveWholeGroup(w.db, driver, ceilings, records, fresh));
  }

  return {
    /** `items`: the item hashes of a batch split per item, claimed with it (when `fresh` shares flights). */
    reserve: (record: CallRecord, items?: string[]) =>
      new Promise<Reserved>((resolve, reject) => {
        queue.push({ record, items: items?.length ? items : undefined, resolve, reject });
        if (!running) {
          running = true;
          void pump();
        }
      }),
    /** Resolves when no reservation waits or runs: loading can take the database without delaying a call. */
    idle: (): Promise<void> => (running ? idle.wait() : Promise.resolve()),
  };
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
  const total = group.reduce((s, g) => s + g.record.credits, 0);
  // The whole group at once when it fits (the common case: one statement on Postgres, budget.ts); else call by call.
  const together = group.length > 1 && (await tryReserveCredits(trx, ceilings, total)) === undefined;
  if (!together) {
    for (const [i, g] of group.entries()) {
      const passed = await tryReserveCredits(trx, ceilings, g.record.credits);
      if (passed) out[i] = ceilingError(passed, g.record.credits);
    }
  }
  const granted = group.flatMap((g, i) => (out[i] === undefined ? [{ g, i }] : []));
  if (granted.length) {
    const ids = await insertReserved(
      trx,
      granted.map(({ g }) => g.record),
    );
    for (const { g, i } of granted) out[i] = ids.get(g.record.requestHash)!.shift()!;
  }
  return out as (number | CreditCeilingError)[];
}
