import { type Kysely, sql } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { type ClaimRow, type Claims, claimsOf, type FreshRule, lookupClaims } from "./single-flight.js";

/**
 * Which items of a batch are taken: a fresh stored part (`fresh`), or fetched right now by another
 * live run, either alone (its request is the item's own) or in a batch (`skillsync_item_flights`
 * names the batch's reserved call). Keys are item hashes: the hash of the request asking for the
 * item alone. Run inside the reservation's transaction, after `serialize`, as `lookupClaims`.
 */
export async function lookupItemClaims(
  db: Kysely<AnyDB>,
  itemHashes: string[],
  rule: FreshRule & { runId: string },
): Promise<Claims> {
  const own = await lookupClaims(db, itemHashes, rule);
  if (!itemHashes.length) return own;
  const r = await sql<ClaimRow>`select f.item_hash as request_hash, c.started_at as received_at, c.run_id,
      c.id as call_id, r.pid, r.host, r.heartbeat_at, r.status
    from skillsync_item_flights f
    join skillsync_calls c on c.id = f.call_id
    join skillsync_runs r on r.id = c.run_id
    where f.item_hash in (${sql.join(itemHashes)}) and c.outcome = 'reserved' and c.run_id <> ${rule.runId}`.execute(
    db,
  );
  const batched = claimsOf(r.rows, rule);
  for (const [hash, flight] of batched.inFlight) {
    if (!own.fresh.includes(hash) && !own.inFlight.has(hash)) own.inFlight.set(hash, flight);
  }
  own.abandoned.push(...batched.abandoned);
  return own;
}

/** Records that `callId` (reserved, in this transaction) fetches these items: other runs await it. */
export async function claimItems(db: Kysely<AnyDB>, callId: number, itemHashes: string[]): Promise<void> {
  // A statement's upsert may touch a row once: repeats go. Sorted, runs at once under --refresh
  // (which claim the same items) lock them in one order and cannot deadlock on Postgres.
  const unique = [...new Set(itemHashes)].sort();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = unique.slice(i, i + 500).map((item_hash) => ({ item_hash, call_id: callId }));
    await db
      .insertInto("skillsync_item_flights")
      .values(rows)
      .onConflict((oc) => oc.column("item_hash").doUpdateSet({ call_id: callId }))
      .execute();
  }
}
