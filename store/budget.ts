import { type Kysely, type RawBuilder, sql } from "kysely";
import { type AllOrNoneUpdate, adapterOf } from "../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { CreditCeilingError } from "../core/errors.js";

/** A ceiling on credits: a scope row in skillsync_budgets and its limit (null: no limit, only counted). */
export interface Ceiling {
  scope: string;
  limit: number | null;
  /** How users name it in messages: "--max-credits", "pipeline maxCredits", "daily budget". */
  label: string;
}

// Floating-point sums of prices like 0.1 must not refuse a call that fits exactly.
const EPSILON = 1e-9;

export const dayScope = (d = new Date()) => `daily:${d.toISOString().slice(0, 10)}`;
export const monthScope = (d = new Date()) => `monthly:${d.toISOString().slice(0, 7)}`;

/** The persistent daily and monthly ceilings of the warehouse, as ceilings for a call made now. */
export async function warehouseCeilings(w: Warehouse): Promise<Ceiling[]> {
  const rows = await w.db
    .selectFrom("skillsync_budget_settings")
    .select(["period", "limit_credits"])
    .execute();
  const limitOf = (p: string) => {
    const v = rows.find((r) => r.period === p)?.limit_credits;
    return v === null || v === undefined ? null : Number(v);
  };
  return [
    { scope: dayScope(), limit: limitOf("daily"), label: "daily budget" },
    { scope: monthScope(), limit: limitOf("monthly"), label: "monthly budget" },
  ];
}

/**
 * Reserves `credits` against every ceiling at once, inside the caller's transaction: each scope is
 * one conditional UPDATE, so concurrent calls and concurrent runs cannot overshoot (Postgres re-checks
 * the condition after the row lock; SQLite has one writer). Scopes are taken in a fixed order so two
 * transactions never wait on each other in a cycle. Throws CreditCeilingError when one would pass.
 */
export async function reserveCredits(
  trx: Kysely<AnyDB>,
  ceilings: Ceiling[],
  credits: number,
): Promise<void> {
  const passed = await tryReserveCredits(trx, ceilings, credits);
  if (passed) throw ceilingError(passed, credits);
}

export function ceilingError(c: Ceiling, credits: number): CreditCeilingError {
  return new CreditCeilingError(
    c.label,
    `stopped at the ${c.label}${c.limit === null ? "" : ` of ${c.limit} credits`}: the next call (${credits} credits) would pass it`,
  );
}

/**
 * Ceilings in the one order every transaction takes their rows in, so none waits on another in a
 * cycle: the scopes' code points, as the adapter's `updateAllOrNone` locks them (`reserveAllAtOnce`).
 */
export function inLockOrder(ceilings: readonly Ceiling[]): Ceiling[] {
  return [...ceilings].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

/**
 * The conditional UPDATE that reserves `credits` against one scope: it changes the row only when
 * the scope has no limit or the credits fit under it. One statement for both reservation paths
 * (this module's, and reserve-whole-group.ts, which runs its text as a prepared statement).
 */
export function reserveStatement(scope: string, credits: number, at: string): RawBuilder<unknown> {
  return sql`update skillsync_budgets set ${reserving(credits, at)}
    where scope = ${scope} and (${fitsUnderLimit(credits)})`;
}

/** What reserving `credits` sets on a scope's row. */
const reserving = (credits: number, at: string) => sql`reserved = reserved + ${credits}, updated_at = ${at}`;

/** Whether `credits` more fit under a scope's row's limit (none: always). */
const fitsUnderLimit = (credits: number) =>
  sql`limit_credits is null or reserved + ${credits} <= limit_credits + ${EPSILON}`;

/**
 * `reserveCredits` that leaves the transaction usable when a ceiling would pass: the scopes already
 * reserved are given back and the ceiling is returned (undefined: all reserved).
 */
export async function tryReserveCredits(
  trx: Kysely<AnyDB>,
  ceilings: Ceiling[],
  credits: number,
): Promise<Ceiling | undefined> {
  const now = new Date().toISOString();
  const sorted = inLockOrder(ceilings);
  const allOrNone = adapterOf(trx).updateAllOrNone;
  if (sorted.length > 1 && allOrNone) {
    if (await reserveAllAtOnce(trx, allOrNone, sorted, credits, now)) return undefined;
  }
  const reserve = async (c: Ceiling) =>
    Number((await reserveStatement(c.scope, credits, now).execute(trx)).numAffectedRows ?? 0) > 0;
  for (const [i, c] of sorted.entries()) {
    // The scope's row exists after its first call: one UPDATE per call. Only when it did not
    // apply is the row created (if missing) and the UPDATE tried once more.
    if (await reserve(c)) continue;
    await trx
      .insertInto("skillsync_budgets")
      .values({ scope: c.scope, limit_credits: c.limit, reserved: 0, updated_at: now })
      .onConflict((oc) => oc.column("scope").doNothing())
      .execute();
    if (!(await reserve(c))) {
      await releaseCredits(trx, sorted.slice(0, i), credits);
      return c;
    }
  }
  return undefined;
}

/**
 * Where rows can be locked in a chosen order (the adapter's `updateAllOrNone`, Postgres): reserves
 * `credits` against every ceiling in ONE statement when every scope's row exists and the credits
 * fit under each; otherwise changes nothing (the caller goes scope by scope). One round trip
 * instead of one per scope; the rows locked in lock order, so no deadlock against a transaction
 * taking them one by one, and each checked at its latest `reserved`.
 */
async function reserveAllAtOnce(
  trx: Kysely<AnyDB>,
  allOrNone: (db: Kysely<AnyDB>, u: AllOrNoneUpdate) => Promise<number>,
  sorted: readonly Ceiling[],
  credits: number,
  at: string,
): Promise<boolean> {
  const changed = await allOrNone(trx, {
    table: "skillsync_budgets",
    key: "scope",
    keys: sorted.map((c) => c.scope),
    set: reserving(credits, at),
    fits: fitsUnderLimit(credits),
  });
  return changed === sorted.length;
}

/** Gives reserved credits back (a call the service refused without charging). */
export async function releaseCredits(db: Kysely<AnyDB>, ceilings: Ceiling[], credits: number): Promise<void> {
  if (credits <= 0) return;
  for (const c of inLockOrder(ceilings)) {
    await db
      .updateTable("skillsync_budgets")
      .set((eb) => ({ reserved: eb("reserved", "-", credits) }))
      .where("scope", "=", c.scope)
      .execute();
  }
}
