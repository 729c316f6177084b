import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { deliverDue } from "../../../engine/notify/deliver.js";
import { watchTargets } from "../../../engine/notify/watch-targets.js";
import { type Alert, listAlerts } from "../../../store/alerts.js";
import { eventIdOf } from "../../../store/outbox.js";
import { outboxRows } from "../../../store/outbox-claim.js";
import { listWatchNotify } from "../../../store/watches.js";
import { until } from "../../helpers/until.js";
import { cli } from "./cli.js";

/** The Monday-to-Monday dates of the weekly loads: `weekOf(0)` is the first load's date. */
export const weekOf = (n: number): string =>
  new Date(Date.UTC(2026, 10, 8) + n * 7 * 86_400_000).toISOString().slice(0, 10);

/** Writes keys one per line (what `--param patent=@FILE` and `--keys @FILE` read). */
export function keysFile(dir: string, name: string, keys: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${keys.join("\n")}\n`);
  return path;
}

/** `skillsync watch add` in this process; fails the trial on any exit but 0. */
export async function addWatch(db: string, name: string, args: string[], env: Record<string, string> = {}) {
  const r = await cli(["watch", "add", name, "--table", "patent_legal_status", ...args, "--db", db], env);
  if (r.code !== 0) throw new Error(`watch add ${name}: exit ${r.code}: ${r.err}`);
}

async function withWarehouse<T>(db: string, fn: (w: Warehouse) => Promise<T>): Promise<T> {
  const w = await openWarehouse(db);
  try {
    return await fn(w);
  } finally {
    await w.close();
  }
}

/** Every alert recorded, those a cooldown held back too. */
export const allAlerts = (db: string): Promise<Alert[]> =>
  withWarehouse(db, (w) => listAlerts(w.db, { withSuppressed: true }));

/**
 * Delivers, as a process with `env` would, until no event of the outbox is left undelivered (what
 * killed runs left, what failed and waits its backoff): the end state every receiver must reach.
 */
export async function deliverAll(db: string, env: NodeJS.ProcessEnv, ms = 180_000): Promise<void> {
  await withWarehouse(db, async (w) => {
    await until(
      async () => {
        await deliverDue(w, watchTargets(await listWatchNotify(w), env), {
          backoff: { baseMs: 50, capMs: 200 },
        });
        return (await outboxRows(w)).every((r) => r["delivered_at"] !== null);
      },
      ms,
      "every event of the outbox delivered",
    );
  });
}

/** The event ids the alerts must reach a target as: one per alert (`none`), one per watch and load (`load`). */
export function expectedEventIds(alerts: readonly Alert[], digests: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const a of alerts) {
    if (a.suppressed) continue;
    out.add(
      digests.has(a.watch) ? eventIdOf("alert.digest", a.watch, String(a.loadId)) : eventIdOf("alert", a.id),
    );
  }
  return out;
}

/** What arrived, counted by id: duplicates (received twice or more) and ids missing or unexpected. */
export function compareIds(received: readonly string[], expected: ReadonlySet<string>) {
  const counts = new Map<string, number>();
  for (const id of received) counts.set(id, (counts.get(id) ?? 0) + 1);
  return {
    distinct: counts.size,
    missing: [...expected].filter((id) => !counts.has(id)),
    unexpected: [...counts.keys()].filter((id) => !expected.has(id)),
    receivedTwice: [...counts.values()].filter((n) => n > 1).length,
    maxPerId: Math.max(0, ...counts.values()),
  };
}

/** Alerts recorded twice: the same watch, key, column and change (old → new) more than once. */
export function duplicateAlerts(alerts: readonly Alert[]): string[] {
  const seen = new Map<string, number>();
  for (const a of alerts) {
    const k = JSON.stringify([a.watch, a.key, a.column, a.change, a.old, a.new]);
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} × ${n}`);
}
