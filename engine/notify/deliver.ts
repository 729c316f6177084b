import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type Log, silentLog } from "../../core/log.js";
import { claimDue, markDelivered, markFailed, type OutboxEvent } from "../../store/outbox-claim.js";
import type { DeliveryTarget } from "./config.js";
import { sendEvent } from "./send.js";

/** How long a failed delivery waits: `baseMs` doubled per attempt, at most `capMs`, with jitter. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** With the cap at 30 s a receiver back after any outage has its events within about 30 s. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, capMs: 30_000 };

export interface DeliveryOptions {
  /** Stops delivering: a POST under way is cut and its event stays for the next deliverer. */
  signal?: AbortSignal | undefined;
  /**
   * Stops taking events: no new claim or POST, claimed events not yet sent are due again at once
   * for another deliverer; a POST under way finishes (unless `signal` cuts it).
   */
  halt?: AbortSignal | undefined;
  /** Each POST's or e-mail's time-out (default 10 s). */
  timeoutMs?: number | undefined;
  backoff?: Backoff | undefined;
  /** The clock the outbox is read and written with (tests move it). */
  now?: (() => Date) | undefined;
  log?: Log | undefined;
}

/** A claimed event is another deliverer's again after this (longer than any POST may take). */
const LEASE_MS = 60_000;
const ROUNDS = 50;

function retryDelay(attempts: number, b: Backoff, random = Math.random): number {
  const full = Math.min(b.capMs, b.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full * (0.5 + random() / 2));
}

/**
 * Delivers the due events of these targets until none is due (or `signal`): per target one at a
 * time in outbox order, targets side by side so a hanging receiver holds up only its own events.
 * Returns how many were delivered and how many failed (to be tried again after their backoff).
 */
export async function deliverDue(
  w: Warehouse,
  targets: readonly DeliveryTarget[],
  o: DeliveryOptions = {},
): Promise<{ delivered: number; failed: number }> {
  const byHash = new Map(targets.map((t) => [t.hash, t]));
  const now = o.now ?? (() => new Date());
  const tally = { delivered: 0, failed: 0 };
  const stopped = () => o.signal?.aborted || o.halt?.aborted;
  for (let round = 0; round < ROUNDS && byHash.size && !stopped(); round++) {
    const due = await claimDue(w, [...byHash.keys()], { now: now(), leaseMs: LEASE_MS, limit: 20 });
    if (!due.length) break;
    const perTarget = new Map<string, OutboxEvent[]>();
    for (const e of due) perTarget.set(e.target, [...(perTarget.get(e.target) ?? []), e]);
    await Promise.all(
      [...perTarget].map(async ([hash, events]) => {
        for (const e of events) await deliverOne(w, byHash.get(hash)!, e, o, now, tally);
      }),
    );
  }
  return tally;
}

async function deliverOne(
  w: Warehouse,
  t: DeliveryTarget,
  e: OutboxEvent,
  o: DeliveryOptions,
  now: () => Date,
  tally: { delivered: number; failed: number },
): Promise<void> {
  if (o.signal?.aborted || o.halt?.aborted) {
    // Never sent: another deliverer may take it now, without a backoff.
    await markFailed(w, e.seq, "not sent: the deliverer stopped", now());
    return;
  }
  const r = await sendEvent(t, e, { timeoutMs: o.timeoutMs ?? 10_000, signal: o.signal });
  if (r.ok) {
    tally.delivered++;
    await markDelivered(w, e.seq, now());
    return;
  }
  tally.failed++;
  const wait = retryDelay(e.attempts, o.backoff ?? DEFAULT_BACKOFF);
  await markFailed(w, e.seq, r.error ?? "failed", new Date(now().getTime() + wait));
  (o.log ?? silentLog)(
    `notification ${e.id} (${e.kind}) to ${t.from} not delivered: ${r.error}; again in ${Math.ceil(wait / 1000)} s`,
    {
      event: "notify.failed",
      level: "warn",
      runId: e.runId,
      eventId: e.id,
      kind: e.kind,
      attempts: e.attempts,
    },
  );
}
