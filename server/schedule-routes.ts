import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { scheduleSchema } from "../schema/schedule.js";
import { nextTimes } from "../schema/schedule-times.js";
import { readStates } from "../store/schedule-state.js";
import {
  addSheetSchedule,
  deleteSheetSchedule,
  lastRefreshes,
  liveSheetSchedules,
  type SheetSchedule,
  sheetScheduleKey,
} from "../store/sheet-schedules.js";
import { errorReply, type Reply, reply } from "./http.js";
import { checkRun, jsonBody, parse, type RouteContext, runRequestSchema } from "./routes.js";

/** More live schedules than this on one warehouse is a mistake (a loop in someone's script), not a plan. */
const MAX_SCHEDULES = 500;

const spreadsheetId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,200}$/, "is not a spreadsheet id (the part of its URL after /d/)");

const scheduleRequestSchema = runRequestSchema.extend({
  cron: scheduleSchema.shape.cron,
  timezone: scheduleSchema.shape.timezone,
  spreadsheet: spreadsheetId,
  // Google allows tab titles of at most 100 characters.
  tab: z.string().trim().min(1).max(100),
});

const listQuerySchema = z.strictObject({
  spreadsheet: spreadsheetId.optional(),
  nonce: z.string().max(64).optional(),
});

/**
 * POST /schedules: a tab refreshed by a pipeline on a cron. The run's pipeline, params and cap are
 * checked as POST /runs checks them, so a schedule that could never run is refused now, not at
 * its first tick. Stored in the warehouse: every `serve` and `schedule` on it fires it, once a tick.
 */
export async function postSchedule(ctx: RouteContext, body: string): Promise<Reply> {
  const parsed = jsonBody(body);
  if ("status" in parsed) return parsed;
  const req = parse(scheduleRequestSchema, parsed.json, "schedule request");
  const run = checkRun(ctx, req, "schedule request");
  // Each tick would pay for a run whose rows can never reach the tab: refused while nothing is stored.
  if (!ctx.sheets) {
    return errorReply(
      409,
      "SHEETS_NOT_CONFIGURED",
      "this server has no Google credentials, so a sheet schedule could never write its tab: set GOOGLE_APPLICATION_CREDENTIALS (a service account key file) or SKILLSYNC_SHEETS_ACCESS_TOKEN where `skillsync serve` starts, then restart it (docs/sheets.md)",
    );
  }
  if ((await liveSheetSchedules(ctx.warehouse)).length >= MAX_SCHEDULES) {
    throw new ValidationError("schedule request", [
      { path: [], message: `the warehouse already has ${MAX_SCHEDULES} schedules; delete some first` },
    ]);
  }
  const schedule = await addSheetSchedule(ctx.warehouse, {
    pipeline: run.pipeline.name,
    params: req.params,
    cron: req.cron,
    timezone: req.timezone,
    maxCredits: run.maxCredits,
    spreadsheet: req.spreadsheet,
    tab: req.tab,
    // A history table's runs load new versions only: they go below the earlier ones.
    mode: run.pipeline.records.mode === "history" ? "append" : "replace",
  });
  ctx.schedulesChanged?.();
  return reply(201, { schedule: (await views(ctx, [schedule]))[0] });
}

/** GET /schedules[?spreadsheet=ID]: the live schedules, with their next tick and last outcome. */
export async function listSchedules(ctx: RouteContext, query: URLSearchParams): Promise<Reply> {
  const q = parse(listQuerySchema, Object.fromEntries(query), "query");
  return reply(200, { schedules: await views(ctx, await liveSheetSchedules(ctx.warehouse, q.spreadsheet)) });
}

/** DELETE /schedules/:id: no tick after this one starts a run, on any server. */
export async function deleteSchedule(ctx: RouteContext, id: string): Promise<Reply> {
  if (await deleteSheetSchedule(ctx.warehouse, id)) {
    ctx.schedulesChanged?.();
    return reply(200, { deleted: id });
  }
  return errorReply(404, "UNKNOWN_SCHEDULE", `no schedule "${id.slice(0, 80)}" (see GET /schedules)`);
}

async function views(ctx: RouteContext, list: SheetSchedule[]) {
  const w = ctx.warehouse;
  const last = await lastRefreshes(
    w,
    list.map((s) => s.id),
  );
  const states = new Map(
    (
      await readStates(
        w,
        list.map((s) => sheetScheduleKey(s.id)),
      )
    ).map((st) => [st.pipeline, st]),
  );
  return list.map((s) => {
    const state = states.get(sheetScheduleKey(s.id));
    return {
      ...s,
      nextRunAt: nextTimes(s.cron, s.timezone, 1)[0]?.toISOString() ?? null,
      // Paused after failed runs in a row, until `skillsync schedule resume sheet:<id>`.
      paused: state?.paused ?? false,
      pausedReason: state?.pausedReason ?? null,
      last: last.get(s.id) ?? null,
    };
  });
}
