import { randomBytes } from "node:crypto";
import { readJson } from "../connectors/warehouse/adapter.js";
import type { Warehouse } from "../connectors/warehouse/open.js";

/** A tab refreshed by a pipeline on a cron, as `POST /schedules` stored it. */
export interface SheetSchedule {
  id: string;
  pipeline: string;
  params: Record<string, unknown>;
  cron: string;
  timezone: string;
  maxCredits: number;
  spreadsheet: string;
  tab: string;
  mode: "replace" | "append";
  createdAt: string;
}

/** How the latest tick of a sheet schedule went. */
export interface LastRefresh {
  tickAt: string;
  /** The run's status (succeeded, warnings, failed, ceiling, interrupted), or skipped / error. */
  outcome: string;
  runId: string | null;
  credits: number | null;
  /** The credits are the catalog's guesses, not a price file's (docs/pricing.md); null without a run. */
  creditsEstimated: boolean | null;
  rows: number | null;
  note: string | null;
  finishedAt: string | null;
}

/** The key a sheet schedule's ticks and run slot are kept under in the scheduler's tables. */
export const sheetScheduleKey = (id: string): string => `sheet:${id}`;

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

function toSchedule(r: Record<string, unknown>): SheetSchedule {
  return {
    id: String(r["id"]),
    pipeline: String(r["pipeline"]),
    params: readJson<Record<string, unknown>>(r["params"]) ?? {},
    cron: String(r["cron"]),
    timezone: String(r["timezone"]),
    maxCredits: Number(r["max_credits"]),
    spreadsheet: String(r["spreadsheet"]),
    tab: String(r["tab"]),
    mode: r["mode"] === "append" ? "append" : "replace",
    createdAt: iso(r["created_at"]) ?? "",
  };
}

export async function addSheetSchedule(
  w: Warehouse,
  s: Omit<SheetSchedule, "id" | "createdAt">,
): Promise<SheetSchedule> {
  const row = {
    id: `s${randomBytes(6).toString("hex")}`,
    pipeline: s.pipeline,
    params: JSON.stringify(s.params),
    cron: s.cron,
    timezone: s.timezone,
    max_credits: s.maxCredits,
    spreadsheet: s.spreadsheet,
    tab: s.tab,
    mode: s.mode,
    created_at: new Date().toISOString(),
  };
  await w.db.insertInto("skillsync_sheet_schedules").values(row).execute();
  return toSchedule(row);
}

/** The schedules not deleted, oldest first; of one spreadsheet when it is named. */
export async function liveSheetSchedules(w: Warehouse, spreadsheet?: string): Promise<SheetSchedule[]> {
  let q = w.db
    .selectFrom("skillsync_sheet_schedules")
    .selectAll()
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id");
  if (spreadsheet !== undefined) q = q.where("spreadsheet", "=", spreadsheet);
  return (await q.execute()).map(toSchedule);
}

export async function isLiveSheetSchedule(w: Warehouse, id: string): Promise<boolean> {
  const r = await w.db
    .selectFrom("skillsync_sheet_schedules")
    .select("id")
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return r !== undefined;
}

/** Marks a schedule deleted; false when there is no such live schedule. */
export async function deleteSheetSchedule(w: Warehouse, id: string): Promise<boolean> {
  const r = await w.db
    .updateTable("skillsync_sheet_schedules")
    .set({ deleted_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The latest finished tick of each schedule, with its run's credits and rows: one row per schedule
 * read, however many ticks it has had.
 */
export async function lastRefreshes(w: Warehouse, ids: string[]): Promise<Map<string, LastRefresh>> {
  const out = new Map<string, LastRefresh>();
  if (!ids.length) return out;
  const latest = w.db
    .selectFrom("skillsync_schedule_ticks")
    .select(["pipeline", (eb) => eb.fn.max("tick_at").as("tick_at")])
    .where("pipeline", "in", ids.map(sheetScheduleKey))
    .where("finished_at", "is not", null)
    .groupBy("pipeline")
    .as("l");
  const ticks = await w.db
    .selectFrom("skillsync_schedule_ticks as t")
    .innerJoin(latest, (j) => j.onRef("l.pipeline", "=", "t.pipeline").onRef("l.tick_at", "=", "t.tick_at"))
    .leftJoin("skillsync_runs as r", "r.id", "t.run_id")
    .select([
      "t.pipeline",
      "t.tick_at",
      "t.status",
      "t.run_id",
      "t.run_status",
      "t.note",
      "t.finished_at",
      "r.credits_spent",
      "r.credits_estimated",
      "r.rows_written",
    ])
    .execute();
  for (const t of ticks) {
    out.set(String(t.pipeline).slice("sheet:".length), {
      tickAt: iso(t.tick_at) ?? "",
      outcome: String(t.status === "skipped" ? "skipped" : (t.run_status ?? t.status)),
      runId: t.run_id === null ? null : String(t.run_id),
      credits: t.credits_spent === null || t.credits_spent === undefined ? null : Number(t.credits_spent),
      creditsEstimated:
        t.credits_estimated === null || t.credits_estimated === undefined
          ? null
          : Boolean(t.credits_estimated),
      rows: t.rows_written === null || t.rows_written === undefined ? null : Number(t.rows_written),
      note: t.note === null ? null : String(t.note),
      finishedAt: iso(t.finished_at),
    });
  }
  return out;
}
