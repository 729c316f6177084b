import type { Warehouse } from "../../connectors/warehouse/open.js";
import { writeEachAlert, writeLoadDigests } from "../../store/alert-events.js";
import { insertAlerts } from "../../store/alerts.js";
import type { WatchRow } from "../../store/watches.js";
import { wouldAlert } from "./watch-test.js";

/**
 * `watch add --backfill`: the changes already loaded that the watch would have alerted on are
 * recorded and sent as if each load had seen the watch (once: alerts and events are keyed as a
 * load's are). Returns how many alerts it recorded.
 */
export async function backfillWatch(w: Warehouse, watch: WatchRow): Promise<number> {
  const drafts = await wouldAlert(w, watch);
  if (!drafts.length) return 0;
  const fresh = await w.transaction(async (tx) => {
    const made = await insertAlerts(tx.db, drafts);
    await writeEachAlert(tx.db, watch.spec, made);
    return made;
  });
  for (const load of new Set(fresh.map((a) => a.loadId))) await writeLoadDigests(w, load);
  return fresh.length;
}
