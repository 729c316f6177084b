import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ValidationError } from "../../core/errors.js";
import { type Alert, lastAlertLoad, listAlerts } from "../../store/alerts.js";

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
  if (/^\d+$/.test(since)) return listAlerts(w.db, { ...base, afterLoad: Number(since) });
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(since) && !Number.isNaN(Date.parse(since))) {
    const date = new Date(since.length === 10 ? `${since}T00:00:00Z` : since).toISOString();
    return listAlerts(w.db, { ...base, sinceDate: date });
  }
  throw new ValidationError("--since", [
    {
      path: [],
      message: `"${since.slice(0, 40)}" is neither "last", a date (YYYY-MM-DD) nor a load id (a number)`,
    },
  ]);
}
