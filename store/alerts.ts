import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { adapterOf } from "../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import type { ColumnType } from "../schema/table.js";

/** One match of a watch: which key, what changed (old → new as text), and the load that changed it. */
export interface AlertDraft {
  watch: string;
  table: string;
  key: string;
  /** The column or child table; null for a key's first version. */
  column: string | null;
  change: "changed" | "appeared";
  old: string | null;
  new: string | null;
  loadId: number;
  runId: string | null;
  changedAt: string;
  /** Within the watch's cooldown for this key: recorded, not sent. */
  suppressed: boolean;
}

/** An alert as recorded, with its stable id (what receivers deduplicate on). */
export interface Alert extends AlertDraft {
  id: string;
  createdAt: string;
}

/** The stable id of an alert: the same match found twice (a resumed load, two loads at once) is one alert. */
const alertIdOf = (a: Pick<AlertDraft, "watch" | "key" | "column" | "loadId" | "change">): string =>
  `al_${createHash("sha256")
    .update([a.watch, a.key, a.column ?? "", String(a.loadId), a.change].join("\n"))
    .digest("hex")
    .slice(0, 24)}`;

/** skillsync_alerts as written (migrations/022), but the id the database numbers. */
export const ALERT_COLUMNS: readonly { name: string; type: ColumnType }[] = [
  ...["alert_id", "watch", "table_name", "key_text", "column_name", "change", "old_value", "new_value"].map(
    (name) => ({ name, type: "text" as const }),
  ),
  { name: "load_id", type: "integer" },
  { name: "run_id", type: "text" },
  { name: "changed_at", type: "timestamp" },
  { name: "created_at", type: "timestamp" },
  { name: "suppressed", type: "integer" },
];

/** Records matches inside the load's transaction; a match already recorded stays as it was. Returns the new ones. */
export async function insertAlerts(db: Kysely<AnyDB>, drafts: readonly AlertDraft[]): Promise<Alert[]> {
  const now = new Date().toISOString();
  // The same match twice in the drafts (two new child rows of one key) is one alert: the first.
  const byId = new Map<string, Alert>();
  for (const d of drafts) {
    const id = alertIdOf(d);
    if (!byId.has(id)) byId.set(id, { ...d, id, createdAt: now });
  }
  const alerts = [...byId.values()];
  if (!alerts.length) return [];
  // Many rows a statement, in the database's own bulk form (issue 46's bench): which went in says
  // which are new, so an alert found again by a resumed load is neither recorded nor sent twice.
  const made = await adapterOf(db).insertNew(db, {
    table: "skillsync_alerts",
    columns: ALERT_COLUMNS,
    rows: alerts.map((a) => {
      const row = rowOf(a);
      return ALERT_COLUMNS.map((c) => row[c.name]);
    }),
    unique: "alert_id",
  });
  const ids = new Set(made.map(String));
  return alerts.filter((a) => ids.has(a.id));
}

/** An alert as its row (`ALERT_COLUMNS` give the order the statement binds). */
function rowOf(a: Alert): Record<string, unknown> {
  return {
    alert_id: a.id,
    watch: a.watch,
    table_name: a.table,
    key_text: a.key,
    column_name: a.column,
    change: a.change,
    old_value: a.old,
    new_value: a.new,
    load_id: a.loadId,
    run_id: a.runId,
    changed_at: a.changedAt,
    created_at: a.createdAt,
    suppressed: a.suppressed ? 1 : 0,
  };
}

/**
 * For cooldowns: when each of these keys last alerted (not suppressed) for each of these watches,
 * keyed by `alertedKey(watch, key)`: every cooling watch of a load transaction in one read.
 */
export async function lastAlerted(
  db: Kysely<AnyDB>,
  watches: readonly string[],
  keys: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!watches.length) return out;
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom("skillsync_alerts")
      .select(["watch", "key_text"])
      .select((eb) => eb.fn.max("changed_at").as("at"))
      .where("watch", "in", watches)
      .where("suppressed", "=", 0)
      .where("key_text", "in", keys.slice(i, i + 500))
      .groupBy(["watch", "key_text"])
      .execute();
    for (const r of rows) out.set(alertedKey(String(r.watch), String(r.key_text)), timeOf(r.at));
  }
  return out;
}

/** A (watch, key) pair as `lastAlerted` keys it. */
export const alertedKey = (watch: string, key: string): string => `${watch}\u0000${key}`;

const timeOf = (v: unknown) => (v instanceof Date ? v.getTime() : Date.parse(String(v)));
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : new Date(timeOf(v)).toISOString());

/** Which alerts to list: since a date or a load, of one watch, of one load. */
export interface AlertQuery {
  sinceDate?: string | undefined;
  afterLoad?: number | undefined;
  loadId?: number | undefined;
  watch?: string | undefined;
  /** Suppressed ones too (cooldown). */
  withSuppressed?: boolean | undefined;
  limit?: number | undefined;
}

/** Alerts, oldest first. */
export async function listAlerts(db: Kysely<AnyDB>, q: AlertQuery = {}): Promise<Alert[]> {
  let s = db.selectFrom("skillsync_alerts").selectAll().orderBy("id");
  if (q.watch !== undefined) s = s.where("watch", "=", q.watch);
  if (q.loadId !== undefined) s = s.where("load_id", "=", q.loadId);
  if (q.afterLoad !== undefined) s = s.where("load_id", ">", q.afterLoad);
  if (q.sinceDate !== undefined) s = s.where("changed_at", ">=", q.sinceDate);
  if (!q.withSuppressed) s = s.where("suppressed", "=", 0);
  if (q.limit !== undefined) s = s.limit(q.limit);
  const rows = await s.execute();
  return rows.map(alertOf);
}

/** The latest alerts sent (a cooldown's suppressed ones left out), newest first. */
export async function latestSentAlerts(db: Kysely<AnyDB>, limit: number): Promise<Alert[]> {
  const rows = await db
    .selectFrom("skillsync_alerts")
    .selectAll()
    .where("suppressed", "=", 0)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(alertOf);
}

function alertOf(r: Record<string, unknown>): Alert {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: String(r["alert_id"]),
    watch: String(r["watch"]),
    table: String(r["table_name"]),
    key: String(r["key_text"]),
    column: text(r["column_name"]),
    change: r["change"] === "appeared" ? "appeared" : "changed",
    old: text(r["old_value"]),
    new: text(r["new_value"]),
    loadId: Number(r["load_id"]),
    runId: text(r["run_id"]),
    changedAt: iso(r["changed_at"]),
    createdAt: iso(r["created_at"]),
    suppressed: Number(r["suppressed"]) === 1,
  };
}

/** The latest load that recorded an alert (`alerts --since last`), or null. */
export async function lastAlertLoad(w: Warehouse, watch?: string): Promise<number | null> {
  let q = w.db.selectFrom("skillsync_alerts").select((eb) => eb.fn.max("load_id").as("id"));
  if (watch !== undefined) q = q.where("watch", "=", watch);
  const r = await q.executeTakeFirst();
  return r?.id === null || r?.id === undefined ? null : Number(r.id);
}
