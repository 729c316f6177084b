import { readJson } from "../../connectors/warehouse/adapter.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { getRun, recentRuns } from "../../store/runs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";

/** A run the warehouse knows (started by the CLI, the scheduler, a server or an agent). */
export async function warehouseRunView(w: Warehouse, id: string) {
  const r = await getRun(w, id);
  return r ? runRowView(r) : undefined;
}

/** The latest runs of the warehouse, whatever started them (server, CLI, scheduler, MCP). */
export async function recentWarehouseRuns(w: Warehouse, limit = 50) {
  const rows = await recentRuns(w, limit);
  return rows.map(runRowView);
}

/**
 * A `skillsync_runs` row as every reader shows it (`runs --json`, GET /runs, MCP's `runs`): one
 * shape, camelCase members, counts grouped as a queued server job's are (server/job-view.ts).
 */
export function runRowView(r: Record<string, unknown>) {
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
      shared: Number(r["calls_shared"] ?? 0),
      failed: Number(r["calls_failed"]),
      rateLimited: Number(r["rate_limited"] ?? 0),
    },
    credits: {
      spent: Number(r["credits_spent"]),
      saved: Number(r["credits_saved"] ?? 0),
      // Priced by the catalog's guesses (or before this was recorded: not known), not a price file.
      estimated:
        r["credits_estimated"] === null ||
        r["credits_estimated"] === undefined ||
        Number(r["credits_estimated"]) !== 0,
    },
    items: { reused: Number(r["items_reused"] ?? 0) },
    rows: { written: Number(r["rows_written"]), rejected: Number(r["rows_rejected"]) },
    mapping: {
      emptyColumns: Number(r["columns_empty"] ?? 0),
      unmappedMembers: Number(r["members_unmapped"] ?? 0),
    },
    warnings: readJson<string[] | null>(r["warnings"] ?? null) ?? [],
    stopReason: r["stop_reason"] ?? null,
    errors: r["error"] ? [{ code: "RUN", message: String(r["error"]) }] : [],
  };
}

/** A pipeline as GET /pipelines and the MCP `list_pipelines` tool show it: what a caller needs to ask for its params. */
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
