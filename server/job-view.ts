import { pushView } from "../engine/start/start-run.js";
import type { Job } from "./queue.js";

/** A job as GET /runs and GET /runs/:id show it. */
export function jobView(j: Job) {
  return {
    runId: j.id,
    pipeline: j.pipeline,
    status: j.status,
    params: j.params,
    queuedAt: j.queuedAt,
    startedAt: j.startedAt ?? null,
    finishedAt: j.finishedAt ?? null,
    warehouseRunId: j.warehouseRunId ?? null,
    resumed: j.resumed,
    calls: {
      done: j.counters.callsDone,
      planned: j.counters.callsPlanned,
      cached: j.counters.callsCached,
      shared: j.counters.callsShared,
      failed: j.counters.callsFailed,
      rateLimited: j.counters.rateLimited,
    },
    credits: {
      spent: j.counters.creditsSpent,
      max: j.maxCredits,
      saved: j.counters.creditsSaved,
      ...(j.creditsEstimated === undefined ? {} : { estimated: j.creditsEstimated }),
    },
    items: { reused: j.counters.itemsReused },
    rows: { written: j.counters.rowsWritten, rejected: j.counters.rowsRejected },
    mapping: { emptyColumns: j.counters.columnsEmpty, unmappedMembers: j.counters.membersUnmapped },
    warnings: j.warnings,
    stopReason: j.stopReason ?? null,
    errors: j.errors,
    tables: j.tables,
    sheetPushes: j.sheetPushes.map(pushView),
  };
}
