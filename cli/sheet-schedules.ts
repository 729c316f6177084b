import type { SheetsConnector } from "../connectors/sheets/connector.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { Log } from "../core/log.js";
import type { LoadedPipeline } from "../engine/define/pipeline-file.js";
import type { PriceTable } from "../engine/define/prices.js";
import type { NotifyTarget } from "../engine/notify/config.js";
import type { SkillCaller, WorkersOptions } from "../engine/start/start-run.js";
import { startScheduler } from "../scheduler/scheduler.js";
import { watchSheetSchedules } from "../scheduler/sheet-schedules.js";

/** How long scheduled runs in flight may take to finish when `serve` stops. */
const GRACE_MS = 10_000;

/**
 * `serve` fires the warehouse's sheet schedules (POST /schedules) with a scheduler of its own,
 * beside its HTTP endpoints: each tick is one run under its cap, its rows pushed to the tab.
 */
export async function fireSheetSchedules(o: {
  warehouse: Warehouse;
  client: SkillCaller;
  pipelines: LoadedPipeline[];
  prices: PriceTable;
  log: Log;
  sheets: SheetsConnector | undefined;
  workers: WorkersOptions | undefined;
  allowUnpriced: boolean | undefined;
  notify: NotifyTarget[];
}): Promise<{ sync(): void; stop(): Promise<void> }> {
  const scheduler = await startScheduler({
    warehouse: o.warehouse,
    client: o.client,
    schedules: [],
    prices: o.prices,
    log: o.log,
    sheet: o.sheets?.reader(),
    sheets: o.sheets,
    workers: o.workers,
    allowUnpriced: o.allowUnpriced,
    notify: o.notify,
  });
  const watch = await watchSheetSchedules({
    scheduler,
    warehouse: o.warehouse,
    pipelines: new Map(o.pipelines.map((p) => [p.name, p])),
    log: o.log,
  });
  return {
    sync: watch.sync,
    async stop() {
      await watch.stop();
      await scheduler.stop(GRACE_MS);
    },
  };
}
