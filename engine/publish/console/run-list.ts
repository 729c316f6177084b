import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { readJson } from "../../../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../core/errors.js";
import { runRowView } from "../run-and-pipeline-views.js";
import { readerDb } from "./compiled-read.js";

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

/** LIKE's wildcards in a name taken literally (with `escape '\'`). */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The filter's conditions (the cursor aside) on a query of skillsync_runs. */
function filtered<Q extends SelectQueryBuilder<AnyDB, "skillsync_runs", object>>(q: Q, f: RunFilter): Q {
  let s = q as SelectQueryBuilder<AnyDB, "skillsync_runs", object>;
  if (f.status) s = s.where("status", "=", f.status);
  if (f.trigger) s = s.where("trigger", "=", f.trigger);
  if (f.from) s = s.where("started_at", ">=", dayStart(f.from, "from"));
  if (f.to) s = s.where("started_at", "<", dayStart(f.to, "to", 1));
  if (f.pipeline) {
    // pipelines is a JSON list: the name as JSON writes it, quotes included, is one whole member.
    const member = `%${literalLike(JSON.stringify(f.pipeline))}%`;
    s = s.where(sql<boolean>`cast(${sql.ref("pipelines")} as text) like ${member} escape '\\'`);
  }
  return s as Q;
}

/** One page of runs, newest first (by start, then id). */
function pageRows(db: Kysely<AnyDB>, f: RunFilter, limit: number) {
  let q = filtered(db.selectFrom("skillsync_runs").selectAll(), f);
  if (f.before) {
    const { at, id } = cursorParts(f.before);
    q = q.where((eb) =>
      eb.or([eb("started_at", "<", at), eb.and([eb("started_at", "=", at), eb("id", "<", id)])]),
    );
  }
  return q.orderBy("started_at", "desc").orderBy("id", "desc").limit(limit).execute();
}

function countRows(db: Kysely<AnyDB>, f: RunFilter) {
  return filtered(
    db.selectFrom("skillsync_runs").select((eb) => eb.fn.countAll().as("n")),
    f,
  ).executeTakeFirst();
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
  const db = readerDb(w, "console runs");
  // One more than a page says whether another follows.
  const [rows, count] = await Promise.all([pageRows(db, f, limit + 1), countRows(db, f)]);
  const runs = rows.slice(0, limit).map(runRowView);
  return {
    runs,
    total: Number(count?.n ?? 0),
    next: rows.length > limit ? cursorOf(runs.at(-1)!) : null,
  };
}

/** Every pipeline a run of the warehouse ran, sorted (the list's pipeline filter). */
export async function runPipelineNames(w: Warehouse): Promise<string[]> {
  const rows = await readerDb(w, "console runs")
    .selectFrom("skillsync_runs")
    .select(sql<string>`cast(${sql.ref("pipelines")} as text)`.as("p"))
    .distinct()
    .execute();
  const names = new Set(rows.flatMap((r) => readJson<string[]>(r.p)));
  return [...names].sort();
}
