import type { Warehouse } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";
import type { EventKind } from "./outbox.js";

/** An event taken for delivery to one target. */
export interface OutboxEvent {
  seq: number;
  id: string;
  target: string;
  runId: string | null;
  kind: EventKind;
  payload: Record<string, unknown>;
  createdAt: string;
  /** Deliveries tried so far, this one included. */
  attempts: number;
}

/** Events older than this are no longer tried (the receiver has been gone for a day). */
const GIVE_UP_MS = 24 * 3600_000;

const iso = (d: Date) => d.toISOString();

/**
 * Claims due events of these targets, in order: an event waits while an earlier undelivered one of
 * the same run and target exists. Each is claimed by a compare-and-set on `attempts` that moves
 * `next_attempt_at` to the end of the lease, so two deliverers never both take it (the loser's
 * update finds `attempts` changed); a deliverer that dies leaves it due again when the lease ends.
 */
export async function claimDue(
  w: Warehouse,
  targets: readonly string[],
  o: { now: Date; leaseMs: number; limit: number },
): Promise<OutboxEvent[]> {
  if (!targets.length) return [];
  const cutoff = iso(new Date(o.now.getTime() - GIVE_UP_MS));
  const rows = await w.db
    .selectFrom("skillsync_outbox as o")
    .select([
      "o.id",
      "o.event_id",
      "o.target",
      "o.run_id",
      "o.kind",
      "o.payload",
      "o.created_at",
      "o.attempts",
    ])
    .where("o.delivered_at", "is", null)
    .where("o.target", "in", [...targets])
    .where("o.next_attempt_at", "<=", iso(o.now))
    .where("o.created_at", ">=", cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("skillsync_outbox as p")
            .select("p.id")
            .whereRef("p.target", "=", "o.target")
            .whereRef("p.run_id", "=", "o.run_id")
            .whereRef("p.id", "<", "o.id")
            .where("p.delivered_at", "is", null)
            .where("p.created_at", ">=", cutoff),
        ),
      ),
    )
    .orderBy("o.id")
    .limit(o.limit)
    .execute();
  const lease = iso(new Date(o.now.getTime() + o.leaseMs));
  const out: OutboxEvent[] = [];
  for (const r of rows) {
    const attempts = Number(r.attempts);
    const taken = await w.db
      .updateTable("skillsync_outbox")
      .set({ attempts: attempts + 1, next_attempt_at: lease })
      .where("id", "=", r.id)
      .where("attempts", "=", attempts)
      .where("delivered_at", "is", null)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) continue;
    out.push({
      seq: Number(r.id),
      id: String(r.event_id),
      target: String(r.target),
      runId: r.run_id === null ? null : String(r.run_id),
      kind: r.kind as EventKind,
      payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
      createdAt: new Date(r.created_at as string | Date).toISOString(),
      attempts: attempts + 1,
    });
  }
  return out;
}

export async function markDelivered(w: Warehouse, seq: number, at: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_outbox")
    .set({ delivered_at: iso(at), last_error: null })
    .where("id", "=", seq)
    .execute();
}

/** A failed delivery: tried again at `retryAt`. The error is short and redacted (no URL, no key). */
export async function markFailed(w: Warehouse, seq: number, error: string, retryAt: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_outbox")
    .set({ next_attempt_at: iso(retryAt), last_error: redact(error).slice(0, 300) })
    .where("id", "=", seq)
    .where("delivered_at", "is", null)
    .execute();
}

/** Every event of the outbox, oldest first (tests, `doctor`). */
export async function outboxRows(w: Warehouse): Promise<Record<string, unknown>[]> {
  return w.db.selectFrom("skillsync_outbox").selectAll().orderBy("id").execute();
}
