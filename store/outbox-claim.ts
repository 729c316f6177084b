import { hostname } from "node:os";
import type { Warehouse } from "../connectors/warehouse/open.js";
import { pidState } from "../core/pid-state.js";
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

/** Who claims: this process, as the outbox records it with each claim. */
const self = () => ({ host: hostname(), pid: process.pid });

/**
 * Claims due events of these targets, in order: an event waits while an earlier undelivered one of
 * the same run and target exists. Each is claimed by a compare-and-set on `attempts` that moves
 * `next_attempt_at` to the end of the lease, so two deliverers never both take it (the loser's
 * update finds `attempts` changed). The claim names its process (host and pid): the claims of a
 * process on this host that is gone are due again at once (`releaseDeadClaims`); a deliverer on
 * another host that dies leaves its events due again when the lease ends.
 */
export async function claimDue(
  w: Warehouse,
  targets: readonly string[],
  o: { now: Date; leaseMs: number; limit: number },
): Promise<OutboxEvent[]> {
  if (!targets.length) return [];
  await releaseDeadClaims(w, targets, o.now);
  const rows = await dueRows(w, targets, o);
  const lease = iso(new Date(o.now.getTime() + o.leaseMs));
  const out: OutboxEvent[] = [];
  for (const r of rows) {
    const event = await claim(w, r, lease);
    if (event) out.push(event);
  }
  return out;
}

/**
 * Undelivered events of these targets that are due, not given up on, and first of their run and
 * target among those still undelivered; oldest first.
 */
function dueRows(w: Warehouse, targets: readonly string[], o: { now: Date; limit: number }) {
  const cutoff = iso(new Date(o.now.getTime() - GIVE_UP_MS));
  return w.db
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
}

/** Claims one due event until `lease`; undefined when another deliverer took it first. */
async function claim(
  w: Warehouse,
  r: Awaited<ReturnType<typeof dueRows>>[number],
  lease: string,
): Promise<OutboxEvent | undefined> {
  const { host, pid } = self();
  const attempts = Number(r.attempts);
  const taken = await w.db
    .updateTable("skillsync_outbox")
    .set({ attempts: attempts + 1, next_attempt_at: lease, claimed_host: host, claimed_pid: pid })
    .where("id", "=", r.id)
    .where("attempts", "=", attempts)
    .where("delivered_at", "is", null)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) !== 1) return undefined;
  return {
    seq: Number(r.id),
    id: String(r.event_id),
    target: String(r.target),
    runId: r.run_id === null ? null : String(r.run_id),
    kind: r.kind as EventKind,
    payload: JSON.parse(String(r.payload)) as Record<string, unknown>,
    createdAt: new Date(r.created_at as string | Date).toISOString(),
    attempts: attempts + 1,
  };
}

/**
 * Makes the claimed events of this host's processes that are gone due now, not at the end of their
 * lease (a killed `serve` held them for up to a minute). A pid taken since by another process
 * looks alive: its claims wait the lease, as do those of other hosts' processes.
 */
async function releaseDeadClaims(w: Warehouse, targets: readonly string[], now: Date): Promise<void> {
  const { host, pid } = self();
  const held = await w.db
    .selectFrom("skillsync_outbox")
    .select("claimed_pid")
    .distinct()
    .where("delivered_at", "is", null)
    .where("target", "in", [...targets])
    .where("next_attempt_at", ">", iso(now))
    .where("claimed_host", "=", host)
    .where("claimed_pid", "<>", pid)
    .execute();
  const gone = held.map((r) => Number(r.claimed_pid)).filter((p) => pidState(p) === "gone");
  if (!gone.length) return;
  await w.db
    .updateTable("skillsync_outbox")
    .set({ next_attempt_at: iso(now), claimed_host: null, claimed_pid: null })
    .where("delivered_at", "is", null)
    .where("claimed_host", "=", host)
    .where("claimed_pid", "in", gone)
    .execute();
}

export async function markDelivered(w: Warehouse, seq: number, at: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_outbox")
    .set({ delivered_at: iso(at), last_error: null, claimed_host: null, claimed_pid: null })
    .where("id", "=", seq)
    .execute();
}

/** A failed delivery: tried again at `retryAt`. The error is short and redacted (no URL, no key). */
export async function markFailed(w: Warehouse, seq: number, error: string, retryAt: Date): Promise<void> {
  await w.db
    .updateTable("skillsync_outbox")
    .set({
      next_attempt_at: iso(retryAt),
      last_error: redact(error).slice(0, 300),
      claimed_host: null,
      claimed_pid: null,
    })
    .where("id", "=", seq)
    .where("delivered_at", "is", null)
    .execute();
}

/** Every event of the outbox, oldest first (tests, `doctor`). */
export async function outboxRows(w: Warehouse): Promise<Record<string, unknown>[]> {
  return w.db.selectFrom("skillsync_outbox").selectAll().orderBy("id").execute();
}
