import type { Migration } from "kysely";
import type { WarehouseAdapter } from "../connectors/warehouse/adapter.js";
import { toolkitTables } from "./001_toolkit.js";
import { reportJobs } from "./002_report_jobs.js";
import { scheduleTables } from "./003_schedules.js";
import { responseChunks } from "./004_response_chunks.js";
import { callLoads } from "./005_call_loads.js";
import { singleFlight } from "./006_single_flight.js";
import { runQuality } from "./007_run_quality.js";
import { itemReuse } from "./008_item_reuse.js";
import { workerTables } from "./009_workers.js";
import { readerLoginTable } from "./010_reader_login.js";
import { loadTables } from "./011_loads.js";
import { windowTables } from "./012_windows.js";
import { outboxTable } from "./013_outbox.js";
import { rateLimitTables } from "./014_rate_limits.js";
import { exportTables } from "./015_exports.js";
import { sheetScheduleTable } from "./016_sheet_schedules.js";
import { responseForm } from "./017_response_form.js";
import { dropCallsHashIndex } from "./018_calls_hash_index.js";
import { requestSignatureTable } from "./019_request_signatures.js";
import { creditsEstimated } from "./020_credits_estimated.js";
import { outboxClaimer } from "./021_outbox_claimer.js";
import { watchTables } from "./022_watches_alerts.js";
import { watchKeysByKey } from "./023_watch_keys_by_key.js";
import { consoleReads } from "./024_console_reads.js";

/**
 * The numbered migrations, in order. Names never change once released; new ones are appended.
 * Each is idempotent (`if not exists`) so a half-applied one can be applied again.
 */
export function allMigrations(adapter: WarehouseAdapter): Record<string, Migration> {
  return {
    "001_toolkit": toolkitTables(adapter),
    "002_report_jobs": reportJobs(adapter),
    "003_schedules": scheduleTables(adapter),
    "004_response_chunks": responseChunks(adapter),
    "005_call_loads": callLoads(adapter),
    "006_single_flight": singleFlight(adapter),
    "007_run_quality": runQuality(adapter),
    "008_item_reuse": itemReuse(adapter),
    "009_workers": workerTables(adapter),
    "010_reader_login": readerLoginTable(adapter),
    "011_loads": loadTables(adapter),
    "012_windows": windowTables(adapter),
    "013_outbox": outboxTable(adapter),
    "014_rate_limits": rateLimitTables(adapter),
    "015_exports": exportTables(adapter),
    "016_sheet_schedules": sheetScheduleTable(adapter),
    "017_response_form": responseForm(adapter),
    "018_calls_hash_index": dropCallsHashIndex(),
    "019_request_signatures": requestSignatureTable(adapter),
    "020_credits_estimated": creditsEstimated(adapter),
    "021_outbox_claimer": outboxClaimer(adapter),
    "022_watches_alerts": watchTables(adapter),
    "023_watch_keys_by_key": watchKeysByKey(),
    "024_console_reads": consoleReads(),
  };
}
