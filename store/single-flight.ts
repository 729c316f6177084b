import { type Kysely, sql } from "kysely";
import type { SyncDriver } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import type { CallOutcome } from "./calls.js";
import { isFresh } from "./responses.js";
import { ownerAlive } from "./runs.js";

/** Which stored answers may answer a call: younger than `freshnessMs`, or stored by `runId`. */
export interface FreshRule {
  freshnessMs: number;
  runId?: string;
}

/** A call another live run has reserved and not finished: its answer is awaited, not paid again. */
export interface InFlight {
  hash: string;
  /** The other run's ledger row. */
  callId: number;
  runId: string;
}

/**
 * What a group's one lookup found: hashes with a fresh stored answer, calls in flight in other live
 * runs, and reserved calls of dead runs (`abandoned`: their ids, taken over by this group).
 */
export interface Claims {
  fresh: string[];
  inFlight: Map<string, InFlight>;
  abandoned: number[];
}

/** A row of the lookup: a stored answer (`call_id` null) or another run's reserved call. */
export interface ClaimRow {
  request_hash: string;
  received_at: unknown;
  run_id: unknown;
  call_id: unknown;
  pid: unknown;
  host: unknown;
  heartbeat_at: unknown;
  status: unknown;
}

/**
 * Whether calls in flight in other runs are shared: an answer arriving now is as fresh as any,
 * but a pipeline with `freshness: 0` asks for its own answer every time.
 */
export const sharesInFlight = (rule: FreshRule | undefined): rule is FreshRule & { runId: string } =>
  rule !== undefined && rule.freshnessMs > 0 && rule.runId !== undefined;

/**
 * The lookup as text for a synchronous driver's prepared statement, one statement whatever the
 * group's size: parameters @hashes, the hashes as one JSON array (`jsonArrayValues`), and @run,
 * this run's id (when shared).
 */
export function syncClaimLookup(driver: SyncDriver, shared: boolean): string {
  const hashes = driver.jsonArrayValues("hashes");
  return `select request_hash, received_at, run_id,
    null as call_id, null as pid, null as host, null as heartbeat_at, null as status
  from skillsync_responses where request_hash in ${hashes}${
    shared
      ? ` union all
  select c.request_hash, c.started_at, c.run_id, c.id, r.pid, r.host, r.heartbeat_at, r.status
  from skillsync_calls c join skillsync_runs r on r.id = c.run_id
  where c.request_hash in ${hashes} and c.outcome = 'reserved' and c.run_id <> @run`
      : ""
  }`;
}

/** Sorts a lookup's rows into fresh answers and live calls in flight elsewhere. */
export function claimsOf(rows: readonly ClaimRow[], rule: FreshRule): Claims {
  const fresh = isFresh(rule.freshnessMs, rule.runId);
  const out: Claims = { fresh: [], inFlight: new Map(), abandoned: [] };
  for (const r of rows) {
    if (r.call_id === null) {
      if (fresh(r)) out.fresh.push(r.request_hash);
    } else if (r.status === "running" && ownerAlive(r)) {
      out.inFlight.set(r.request_hash, {
        hash: r.request_hash,
        callId: Number(r.call_id),
        runId: String(r.run_id),
      });
    } else {
      out.abandoned.push(Number(r.call_id));
    }
  }
  // A stored answer wins: it is there now.
  for (const h of out.fresh) out.inFlight.delete(h);
  return out;
}

/**
 * The group's lookup through Kysely (asynchronous drivers, and the general path of synchronous ones): fresh stored answers,
 * and — when the rule shares them — calls of the same requests other live runs have in flight.
 * Run inside the reservation's transaction, after `serialize`, so what it finds still holds when
 * the group is reserved.
 */
export async function lookupClaims(db: Kysely<AnyDB>, hashes: string[], rule: FreshRule): Promise<Claims> {
  if (!hashes.length) return { fresh: [], inFlight: new Map(), abandoned: [] };
  const shared = sharesInFlight(rule);
  const list = sql.join(hashes);
  const r = await sql<ClaimRow>`select request_hash, received_at, run_id,
      null as call_id, null as pid, null as host, null as heartbeat_at, null as status
    from skillsync_responses where request_hash in (${list})
    ${
      shared
        ? sql`union all
    select c.request_hash, c.started_at, c.run_id, c.id, r.pid, r.host, r.heartbeat_at, r.status
    from skillsync_calls c join skillsync_runs r on r.id = c.run_id
    where c.request_hash in (${list}) and c.outcome = 'reserved' and c.run_id <> ${rule.runId}`
        : sql``
    }`.execute(db);
  return claimsOf(r.rows, rule);
}

/** Where another run's call stands: its ledger outcome and whether its run's process lives. */
export async function flightState(
  db: Kysely<AnyDB>,
  callId: number,
): Promise<{ outcome: CallOutcome; ownerAlive: boolean } | undefined> {
  const row = await db
    .selectFrom("skillsync_calls as c")
    .innerJoin("skillsync_runs as r", "r.id", "c.run_id")
    .select(["c.outcome", "r.status", "r.pid", "r.host", "r.heartbeat_at"])
    .where("c.id", "=", callId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { outcome: row.outcome as CallOutcome, ownerAlive: row.status === "running" && ownerAlive(row) };
}

/**
 * Marks dead runs' reserved calls interrupted (as their own resume would), so no run waits for
 * them again. Only while still reserved: an answer that arrived meanwhile stands.
 */
export async function abandonCalls(db: Kysely<AnyDB>, callIds: readonly number[]): Promise<void> {
  if (!callIds.length) return;
  await db
    .updateTable("skillsync_calls")
    .set({ outcome: "interrupted", finished_at: new Date().toISOString() })
    .where("id", "in", callIds)
    .where("outcome", "=", "reserved")
    .execute();
}
