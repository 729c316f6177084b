import type { Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { countRuns, type RunsQuery, runPipelines, runsPage } from "../../../store/console-runs.js";
import { readerWarehouse } from "../../../store/reader-db.js";
import { runRowView } from "../run-and-pipeline-views.js";

/** Which runs to list: each member narrows the list; `before` continues after a page. */
export interface RunFilter {
  status?: string | undefined;
  /** One pipeline of the run (a run of several pipelines is listed under each). */
  pipeline?: string | undefined;
  trigger?: string | undefined;
  /** First UTC day, YYYY-MM-DD, of the runs' start. */
  from?: string | undefined;
  /** Last UTC day, YYYY-MM-DD, included. */
  to?: string | undefined;
  /** The cursor a page gave as `next`: the list goes on after that page's last run. */
  before?: string | undefined;
  limit: number;
}

type RunView = ReturnType<typeof runRowView>;

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function refuse(message: string): never {
  throw new ValidationError("runs filter", [{ path: [], message }]);
}

/** The start of a UTC day given as YYYY-MM-DD, `days` later, as the ISO text runs' times are compared with. */
function dayStart(day: string, member: string, days = 0): string {
  const t = DAY.test(day) ? Date.parse(`${day}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(t)) refuse(`${member} must be a day as YYYY-MM-DD, not "${day}"`);
  return new Date(t + days * DAY_MS).toISOString();
}

// A run's start as stored and its id (run ids hold no space): the order's two keys, so runs
// started at the same time page too.
const cursorOf = (v: RunView) => `${String(v.startedAt)} ${String(v.runId)}`;

function cursorParts(cursor: string): { at: string; id: string } {
  const space = cursor.lastIndexOf(" ");
  const at = cursor.slice(0, space);
  const id = cursor.slice(space + 1);
  if (space < 0 || Number.isNaN(Date.parse(at)) || !id) refuse(`"${cursor}" is not a page cursor`);
  return { at, id };
}

/** The filter's days as the instants runs' starts are compared with. */
function queryOf(f: RunFilter): RunsQuery {
  return {
    status: f.status,
    pipeline: f.pipeline,
    trigger: f.trigger,
    startedFrom: f.from ? dayStart(f.from, "from") : undefined,
    startedBefore: f.to ? dayStart(f.to, "to", 1) : undefined,
  };
}

/**
 * The console's list of runs: a filtered page, newest first, each run as every reader shows it
 * (`runRowView`), how many runs the filter matches, and the cursor of the next page (null on the last).
 */
export async function readRunList(
  w: Warehouse,
  f: RunFilter,
): Promise<{ runs: RunView[]; total: number; next: string | null }> {
  const limit = Math.max(1, Math.floor(f.limit));
  const q = queryOf(f);
  const after = f.before ? cursorParts(f.before) : undefined;
  const r = readerWarehouse(w, "console runs");
  // One more than a page says whether another follows.
  const [rows, total] = await Promise.all([runsPage(r, q, limit + 1, after), countRuns(r, q)]);
  const runs = rows.slice(0, limit).map(runRowView);
  return { runs, total, next: rows.length > limit ? cursorOf(runs.at(-1)!) : null };
}

/** Every pipeline a run of the warehouse ran, sorted (the list's pipeline filter). */
export function runPipelineNames(w: Warehouse): Promise<string[]> {
  return runPipelines(readerWarehouse(w, "console runs"));
}
