import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";
import type { WatchSpec } from "../schema/watch.js";
import { type Alert, listAlerts } from "./alerts.js";
import { eventIdOf, mailHash, type OutboxTarget, targetHash, writeEvent, writeEvents } from "./outbox.js";
import { watchSettings } from "./watches.js";

/** Alerts listed in one digest message at most; the rest are counted (`more`) and in `skillsync alerts`. */
const DIGEST_MAX = 200;

/**
 * Where a watch's alerts go, as outbox targets (hashes): its webhook (`env:NAME` or a literal URL's
 * hash) and each e-mail address. None: the alerts are only recorded.
 */
function watchTargets(spec: WatchSpec): OutboxTarget[] {
  const out: OutboxTarget[] = [];
  const url = spec.notify.url;
  if (url?.startsWith("env:")) out.push({ hash: targetHash(url) });
  else if (url?.startsWith("hash:")) out.push({ hash: url.slice(5) });
  for (const e of spec.notify.email) out.push({ hash: mailHash(e) });
  return out;
}

/** The alert as its message carries it. */
function alertView(a: Alert) {
  return {
    id: a.id,
    key: a.key,
    column: a.column,
    change: a.change,
    old: a.old,
    new: a.new,
    loadId: a.loadId,
    changedAt: a.changedAt,
  };
}

/**
 * Inside the load transaction that recorded them: one event per alert for watches that send each
 * alert on its own (`digest: none`), keyed by the alert's id, so it is written once.
 */
export async function writeEachAlert(
  db: Kysely<AnyDB>,
  spec: WatchSpec,
  alerts: readonly Alert[],
): Promise<void> {
  const targets = watchTargets(spec);
  if (!targets.length || spec.notify.digest !== "none") return;
  await writeEvents(
    db,
    targets,
    alerts
      .filter((a) => !a.suppressed)
      .map((a) => ({
        id: eventIdOf("alert", a.id),
        kind: "alert",
        runId: a.runId,
        payload: { watch: a.watch, table: a.table, alert: alertView(a) },
      })),
  );
}

/**
 * Where a load ends (its run's part finished, here or after a resume): one message per watch with
 * the load's alerts (`digest: load`), keyed by (watch, load) so it is written once whoever ends the
 * load and however often. Nothing for a watch without a match in the load.
 */
export async function writeLoadDigests(w: Warehouse, loadId: number): Promise<void> {
  const alerts = await listAlerts(w.db, { loadId });
  if (!alerts.length) return;
  const specs = new Map((await watchSettings(w.db)).map((x) => [x.name, x.spec]));
  const byWatch = new Map<string, Alert[]>();
  for (const a of alerts) {
    const list = byWatch.get(a.watch);
    // Pushed, not copied: copying the list for each alert was quadratic in a watch's alerts.
    if (list) list.push(a);
    else byWatch.set(a.watch, [a]);
  }
  await w.transaction(async (tx) => {
    for (const [watch, list] of byWatch) {
      const spec = specs.get(watch);
      // A watch removed since, or one that sends each alert: its alerts stay recorded.
      if (!spec || spec.notify.digest === "none") continue;
      if (spec.notify.digest === "day") {
        await addToDayDigest(tx.db, spec, watch, list);
        continue;
      }
      await writeEvent(tx.db, watchTargets(spec), {
        id: eventIdOf("alert.digest", watch, String(loadId)),
        kind: "alert.digest",
        runId: list[0]!.runId,
        payload: digestPayload(watch, list, { digest: "load", loadId, day: null }),
      });
    }
  });
}

/** The members of an `alert.digest` event (docs/alerts.md). */
function digestPayload(
  watch: string,
  alerts: readonly Alert[],
  o: { digest: "load" | "day"; loadId: number | null; day: string | null },
): Record<string, unknown> {
  return {
    watch,
    table: alerts[0]?.table ?? null,
    digest: o.digest,
    loadId: o.loadId,
    runId: alerts[0]?.runId ?? null,
    day: o.day,
    count: alerts.length,
    alerts: alerts.slice(0, DIGEST_MAX).map(alertView),
    more: Math.max(0, alerts.length - DIGEST_MAX),
  };
}

/** The next midnight UTC after `now`: when a day's digest is due. */
const nextMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();

/**
 * `digest: day`: the load's alerts join the watch's message of the day (UTC), due at midnight —
 * one event per (watch, day, target), its list grown by each load of the day while no deliverer
 * has taken it. A load that ends after the day's message was taken gets a message of its own.
 */
export async function addToDayDigest(
  db: Kysely<AnyDB>,
  spec: WatchSpec,
  watch: string,
  alerts: readonly Alert[],
  now = new Date(),
): Promise<void> {
  const targets = watchTargets(spec);
  if (!targets.length || !alerts.length) return;
  const day = now.toISOString().slice(0, 10);
  const id = eventIdOf("alert.day", watch, day);
  for (const { hash } of targets) {
    const row = await db
      .selectFrom("skillsync_outbox")
      .select(["payload", "attempts"])
      .where("event_id", "=", id)
      .where("target", "=", hash)
      .executeTakeFirst();
    const taken = row !== undefined && Number(row.attempts) > 0;
    const earlier =
      row && !taken ? ((JSON.parse(String(row.payload)) as { alerts: Alert[] }).alerts ?? []) : [];
    const all = [
      ...new Map([...earlier, ...alerts.map(alertView)].map((a) => [a.id, a])).values(),
    ] as Alert[];
    const payload = redact(JSON.stringify(digestPayload(watch, all, { digest: "day", loadId: null, day })));
    if (row && !taken) {
      await db
        .updateTable("skillsync_outbox")
        .set({ payload })
        .where("event_id", "=", id)
        .where("target", "=", hash)
        .where("attempts", "=", 0)
        .execute();
      continue;
    }
    await db
      .insertInto("skillsync_outbox")
      .values({
        event_id: taken ? eventIdOf("alert.day", watch, day, alerts[0]!.id) : id,
        target: hash,
        // Not tied to a run: a message due at midnight must not hold back that run's other events.
        run_id: null,
        kind: "alert.digest",
        payload,
        created_at: now.toISOString(),
        attempts: 0,
        next_attempt_at: nextMidnight(now),
      })
      .onConflict((oc) => oc.columns(["event_id", "target"]).doNothing())
      .execute();
  }
}
