import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import type { WatchSpec } from "../schema/watch.js";
import { type Alert, listAlerts } from "./alerts.js";
import { eventIdOf, type OutboxTarget, targetHash, writeEvent } from "./outbox.js";
import { listWatches } from "./watches.js";

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
  for (const e of spec.notify.email) out.push({ hash: targetHash(`mailto:${e.toLowerCase()}`) });
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
  for (const a of alerts) {
    if (a.suppressed) continue;
    await writeEvent(db, targets, {
      id: eventIdOf("alert", a.id),
      kind: "alert",
      runId: a.runId,
      payload: { watch: a.watch, table: a.table, alert: alertView(a) },
    });
  }
}

/**
 * Where a load ends (its run's part finished, here or after a resume): one message per watch with
 * the load's alerts (`digest: load`), keyed by (watch, load) so it is written once whoever ends the
 * load and however often. Nothing for a watch without a match in the load.
 */
export async function writeLoadDigests(w: Warehouse, loadId: number): Promise<void> {
  const alerts = await listAlerts(w.db, { loadId });
  if (!alerts.length) return;
  const specs = new Map((await listWatches(w.db)).map((x) => [x.name, x.spec]));
  const byWatch = new Map<string, Alert[]>();
  for (const a of alerts) byWatch.set(a.watch, [...(byWatch.get(a.watch) ?? []), a]);
  await w.transaction(async (tx) => {
    for (const [watch, list] of byWatch) {
      const spec = specs.get(watch);
      // A watch removed since, or one that sends otherwise: its alerts stay recorded.
      if (!spec || spec.notify.digest !== "load") continue;
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
