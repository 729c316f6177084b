import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { nextTimes } from "../../../schema/schedule-times.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import { readStates, type ScheduleState } from "../../../store/schedule-state.js";
import { liveSheetSchedules, sheetScheduleKey } from "../../../store/sheet-schedules.js";
import type { LoadedPipeline } from "../../define/pipeline-file.js";
import { isoOf } from "./change-feed.js";

/** One schedule this warehouse fires, as the console's schedules page shows it. */
export interface ScheduleView {
  kind: "pipeline" | "sheet";
  /** The name its state row, ticks and `skillsync schedule pause|resume` use: the pipeline's, or `sheet:<id>`. */
  key: string;
  pipeline: string;
  cron: string;
  timezone: string;
  /** The tab a sheet schedule refreshes (`<spreadsheet id> → tab "<title>"`); null for a pipeline file's schedule. */
  target: string | null;
  /** The next instant the cron matches (a paused schedule skips it); null when it never matches again. */
  nextRunAt: string | null;
  paused: boolean;
  pausedReason: string | null;
  /** The latest tick whose run ended: when, its run's status, and the run. */
  last: { at: string | null; status: string | null; runId: string | null };
}

type Base = Omit<ScheduleView, "paused" | "pausedReason" | "last">;

/**
 * Every schedule the warehouse fires: the `schedule:` blocks of the pipelines the server knows and
 * the live sheet schedules (POST /schedules), each with its next tick, whether it is paused and how
 * its latest tick ended. Read as the reader; sorted by next run, paused ones last.
 *
 * @example await readScheduleViews(w, pipelines) // [{ kind: "pipeline", key: "nightly", nextRunAt: "…", … }]
 */
export async function readScheduleViews(w: Warehouse, pipelines: LoadedPipeline[]): Promise<ScheduleView[]> {
  const r = readerWarehouse(w, "console schedules");
  const bases: Base[] = [
    ...pipelines.flatMap((p) =>
      p.schedule ? [base("pipeline", p.name, p.name, p.schedule.cron, p.schedule.timezone, null)] : [],
    ),
    ...(await liveSheetSchedules(r)).map((s) =>
      base(
        "sheet",
        sheetScheduleKey(s.id),
        s.pipeline,
        s.cron,
        s.timezone,
        `${s.spreadsheet} → tab "${s.tab}"`,
      ),
    ),
  ];
  const states = new Map(
    (
      await readStates(
        r,
        bases.map((b) => b.key),
      )
    ).map((s) => [s.pipeline, s]),
  );
  return bases.map((b) => withState(b, states.get(b.key))).sort(byNextRun);
}

function base(
  kind: ScheduleView["kind"],
  key: string,
  pipeline: string,
  cron: string,
  timezone: string,
  target: ScheduleView["target"],
): Base {
  return { kind, key, pipeline, cron, timezone, target, nextRunAt: nextRun(cron, timezone) };
}

/** A stored expression that no longer parses (a sheet schedule from an older version) has no next run. */
function nextRun(cron: string, timezone: string): string | null {
  try {
    return nextTimes(cron, timezone, 1)[0]?.toISOString() ?? null;
  } catch {
    return null;
  }
}

function withState(b: Base, s: ScheduleState | undefined): ScheduleView {
  return {
    ...b,
    paused: s?.paused ?? false,
    pausedReason: s?.pausedReason ?? null,
    last: { at: isoOf(s?.lastTickAt), status: s?.lastStatus ?? null, runId: s?.lastRunId ?? null },
  };
}

function byNextRun(a: ScheduleView, b: ScheduleView): number {
  if (a.paused !== b.paused) return a.paused ? 1 : -1;
  if (a.nextRunAt === b.nextRunAt) return a.key.localeCompare(b.key);
  if (a.nextRunAt === null) return 1;
  if (b.nextRunAt === null) return -1;
  return a.nextRunAt.localeCompare(b.nextRunAt);
}
