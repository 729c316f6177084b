import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type Alert, lastAlertLoad, listAlerts } from "../../store/alerts.js";
import { sinceOf } from "../publish/changes.js";

/** `skillsync alerts`, `GET /alerts`, the MCP tool: which alerts to list. */
export interface AlertsQuery {
  /** `last` (the latest load that alerted), a date (YYYY-MM-DD…), or a load id (alerts of later loads). */
  since?: string | undefined;
  watch?: string | undefined;
  limit?: number | undefined;
}

/** Recorded alerts (not those a cooldown held back), oldest first. */
export async function readAlerts(w: Warehouse, q: AlertsQuery = {}): Promise<Alert[]> {
  const since = q.since?.trim();
  const base = { watch: q.watch, limit: q.limit };
  if (since === undefined || since === "") return listAlerts(w.db, base);
  if (since === "last") {
    const load = await lastAlertLoad(w, q.watch);
    return load === null ? [] : listAlerts(w.db, { ...base, loadId: load });
  }
  const from = sinceOf(since, "the latest load that alerted");
  return listAlerts(w.db, {
    ...base,
    ...("load" in from ? { afterLoad: from.load } : { sinceDate: from.date }),
  });
}
