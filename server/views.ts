import { readJson } from "../connectors/warehouse/adapter.js";
import type { Warehouse } from "../connectors/warehouse/open.js";
import type { LoadedPipeline } from "../pipelines/engine/load.js";
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
      failed: j.counters.callsFailed,
    },
    credits: { spent: j.counters.creditsSpent, max: j.maxCredits },
    rows: { written: j.counters.rowsWritten, rejected: j.counters.rowsRejected },
    stopReason: j.stopReason ?? null,
    errors: j.errors,
    tables: j.tables,
    sheetPushes: j.sheetPushes.map((p) => ({
      pipeline: p.pipeline,
      ...(p.result ? { tab: p.result.tab, rows: p.result.rows, range: p.result.range } : {}),
      ...(p.error ? { error: p.error } : {}),
    })),
  };
}

/** A run the warehouse knows (started by the CLI, the scheduler, or before a server restart). */
export async function warehouseRunView(w: Warehouse, id: string) {
  const r = await w.db.selectFrom("skillsync_runs").selectAll().where("id", "=", id).executeTakeFirst();
  return r ? runRowView(r) : undefined;
}

/** The latest runs of the warehouse, whatever started them (server, CLI, scheduler). */
export async function recentWarehouseRuns(w: Warehouse, limit = 50) {
  const rows = await w.db
    .selectFrom("skillsync_runs")
    .selectAll()
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  return rows.map(runRowView);
}

function runRowView(r: Record<string, unknown>) {
  return {
    runId: r["id"],
    warehouseRunId: r["id"],
    pipeline: readJson<string[]>(r["pipelines"]).join(","),
    trigger: r["trigger"],
    status: r["status"],
    startedAt: r["started_at"],
    finishedAt: r["finished_at"] ?? null,
    calls: {
      done: Number(r["calls_done"]),
      planned: Number(r["calls_planned"]),
      cached: Number(r["calls_cached"]),
      failed: Number(r["calls_failed"]),
    },
    credits: { spent: Number(r["credits_spent"]) },
    rows: { written: Number(r["rows_written"]), rejected: Number(r["rows_rejected"]) },
    stopReason: r["stop_reason"] ?? null,
    errors: r["error"] ? [{ code: "RUN", message: String(r["error"]) }] : [],
  };
}

/** A pipeline as GET /pipelines lists it: what a front end needs to ask for its params. */
export function pipelineView(p: LoadedPipeline) {
  return {
    name: p.name,
    description: p.description ?? null,
    skill: p.skill,
    table: p.records.table,
    maxCredits: p.maxCredits ?? null,
    params: Object.fromEntries(
      Object.entries(p.params).map(([name, d]) => [
        name,
        {
          type: d.type,
          required: d.required,
          repeatable: d.repeatable,
          ...(d.description ? { description: d.description } : {}),
          ...(d.default !== undefined ? { default: d.default } : {}),
          ...(d.enum ? { enum: d.enum } : {}),
          ...(d.min !== undefined ? { min: d.min } : {}),
          ...(d.max !== undefined ? { max: d.max } : {}),
        },
      ]),
    ),
  };
}
