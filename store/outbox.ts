import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";
import type { EventGroup } from "../schema/notify.js";

/** What a notification tells (docs/notifications.md). */
export type EventKind =
  | "run.failed"
  | "run.warnings"
  | "run.ceiling"
  | "budget.80"
  | "budget.100"
  | "schedule.missed"
  | "schedule.skipped"
  | "schedule.refresh-failed"
  | "worker.lost"
  /** One alert of a watch (issue 46; docs/alerts.md). */
  | "alert"
  /** A watch's alerts of one load or day in one message. */
  | "alert.digest";

/** The `on:` name of a kind: `run.failed` → `failed`, `budget.80` → `budget`, `alert.digest` → `alert`. */
const groupOf = (kind: EventKind): EventGroup =>
  (kind.startsWith("run.") ? kind.slice(4) : kind.split(".")[0]) as EventGroup;

/** Where events go, as the outbox knows it: the URL's hash (a URL holds a token), and which events. */
export interface OutboxTarget {
  hash: string;
  on?: readonly EventGroup[] | undefined;
}

/** A short hash of a webhook URL: what the outbox stores instead of the URL. */
export const targetHash = (url: string): string =>
  createHash("sha256").update(url).digest("hex").slice(0, 16);

/** The outbox hash of an e-mail address: the same whatever its case. */
export const mailHash = (address: string): string => targetHash(`mailto:${address.toLowerCase()}`);

export interface EventDraft {
  /** A stable id where one event must be written once whoever decides it; default a random one. */
  id?: string | undefined;
  kind: EventKind;
  runId?: string | null | undefined;
  /** Structured members; redacted when written. */
  payload: Record<string, unknown>;
}

/** A deterministic event id from the facts that make the event one (`ev_` and a hash). */
export const eventIdOf = (...facts: string[]): string =>
  `ev_${createHash("sha256").update(facts.join("\n")).digest("hex").slice(0, 24)}`;

/**
 * Writes an event for each target that wants its kind, inside the caller's transaction where the
 * event was decided. An id already written for a target is left as it is (written once).
 */
export async function writeEvent(
  db: Kysely<AnyDB>,
  targets: readonly OutboxTarget[] | undefined,
  e: EventDraft,
): Promise<void> {
  await writeEvents(db, targets, [e]);
}

/** Outbox rows a statement (8 values each): well under SQLite's and Postgres's bound parameters. */
const EVENTS_PER_INSERT = 500;

/** `writeEvent` for many events: a statement per 500 rows, not a round trip per event (issue 46's bench). */
export async function writeEvents(
  db: Kysely<AnyDB>,
  targets: readonly OutboxTarget[] | undefined,
  events: readonly EventDraft[],
): Promise<void> {
  const now = new Date().toISOString();
  const rows = events.flatMap((e) => {
    const wanted = (targets ?? []).filter((t) => !t.on || t.on.includes(groupOf(e.kind)));
    const id = e.id ?? `ev_${randomBytes(12).toString("hex")}`;
    const payload = redact(JSON.stringify(e.payload));
    return [...new Set(wanted.map((t) => t.hash))].map((target) => ({
      event_id: id,
      target,
      run_id: e.runId ?? null,
      kind: e.kind,
      payload,
      created_at: now,
      attempts: 0,
      next_attempt_at: now,
    }));
  });
  for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
    await db
      .insertInto("skillsync_outbox")
      .values(rows.slice(i, i + EVENTS_PER_INSERT))
      .onConflict((oc) => oc.columns(["event_id", "target"]).doNothing())
      .execute();
  }
}
