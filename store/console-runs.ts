import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { readJson } from "../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";

/** The runs of one UTC day and outcome of a window, summed (the console's overview). */
export interface RunDaySums {
  /** The window's day: index into its bounds. */
  day: number;
  status: string;
  runs: number;
  credits: number;
  saved: number;
  /** Σ calls_cached + calls_shared. */
  fromStore: number;
  itemsReused: number;
}

/** Which runs to list; every member narrows the list. */
export interface RunsQuery {
  status?: string | undefined;
  /** One pipeline of the run (a run of several pipelines is listed under each). */
  pipeline?: string | undefined;
  trigger?: string | undefined;
  /** The first instant of `started_at`, ISO, included. */
  startedFrom?: string | undefined;
  /** The instant `started_at` must be before, ISO. */
  startedBefore?: string | undefined;
}

const STORE_OUTCOMES = ["cached", "shared"];

/**
 * The index of the window's day a timestamp falls in, as SQL both databases read alike: a CASE
 * over the day bounds, bound as parameters (so Postgres compares them as timestamps, SQLite as
 * ISO text) — no date function, which the two name differently.
 */
function dayIndex(column: string, bounds: readonly string[]): RawBuilder<number> {
  const whens = bounds.slice(1, -1).map((b, i) => sql`when ${sql.ref(column)} < ${b} then ${sql.lit(i)}`);
  const last = sql.lit(bounds.length - 2);
  return whens.length ? sql<number>`case ${sql.join(whens, sql` `)} else ${last} end` : sql<number>`${last}`;
}

/**
 * Runs started in a window of days, by day and outcome, with their sums. Day i is
 * [bounds[i], bounds[i+1]) (ISO instants, ascending).
 */
export async function runsByDay(w: Warehouse, bounds: readonly string[]): Promise<RunDaySums[]> {
  const db = w.db;
  const inWindow = db
    .selectFrom("skillsync_runs")
    .select([
      dayIndex("started_at", bounds).as("day"),
      "status",
      "credits_spent",
      "credits_saved",
      "calls_cached",
      "calls_shared",
      "items_reused",
    ])
    .where("started_at", ">=", bounds[0]!)
    .where("started_at", "<", bounds.at(-1)!);
  const rows = await db
    .selectFrom(inWindow.as("r"))
    .select((eb) => [
      "r.day",
      "r.status",
      eb.fn.countAll().as("n"),
      eb.fn.sum("r.credits_spent").as("credits"),
      eb.fn.sum("r.credits_saved").as("saved"),
      eb.fn.sum(eb("r.calls_cached", "+", eb.ref("r.calls_shared"))).as("from_store"),
      eb.fn.sum("r.items_reused").as("reused"),
    ])
    .groupBy(["r.day", "r.status"])
    .execute();
  return rows.map((r) => ({
    day: Number(r.day),
    status: String(r.status),
    runs: Number(r.n),
    credits: Number(r.credits ?? 0),
    saved: Number(r.saved ?? 0),
    fromStore: Number(r.from_store ?? 0),
    itemsReused: Number(r.reused ?? 0),
  }));
}

/**
 * The ledger's answers from the store (cached, or shared by another run's call) of the runs
 * started in a window, by day and skill: counted per run first, so the day of each run is found
 * once, not once per call.
 */
export async function storeAnswersByDay(
  w: Warehouse,
  bounds: readonly string[],
): Promise<{ day: number; skill: string; calls: number }[]> {
  const db = w.db;
  const windowRuns = db
    .selectFrom("skillsync_runs")
    .where("started_at", ">=", bounds[0]!)
    .where("started_at", "<", bounds.at(-1)!);
  const perRun = db
    .selectFrom("skillsync_calls")
    .select((eb) => ["run_id", "skill", eb.fn.countAll().as("n")])
    .where("outcome", "in", STORE_OUTCOMES)
    .where("run_id", "in", windowRuns.select("id"))
    .groupBy(["run_id", "skill"]);
  const dayOfRun = windowRuns.select(["id", dayIndex("started_at", bounds).as("day")]);
  const rows = await db
    .selectFrom(perRun.as("a"))
    .innerJoin(dayOfRun.as("d"), "d.id", "a.run_id")
    .select((eb) => ["d.day", "a.skill", eb.fn.sum("a.n").as("n")])
    .groupBy(["d.day", "a.skill"])
    .execute();
  return rows.map((r) => ({ day: Number(r.day), skill: String(r.skill), calls: Number(r.n) }));
}

/** LIKE's wildcards in a name taken literally (with `escape '\'`). */
const literalLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The query's conditions on a query of skillsync_runs. */
function filtered<Q extends SelectQueryBuilder<AnyDB, "skillsync_runs", object>>(q: Q, f: RunsQuery): Q {
  let s = q as SelectQueryBuilder<AnyDB, "skillsync_runs", object>;
  if (f.status) s = s.where("status", "=", f.status);
  if (f.trigger) s = s.where("trigger", "=", f.trigger);
  if (f.startedFrom) s = s.where("started_at", ">=", f.startedFrom);
  if (f.startedBefore) s = s.where("started_at", "<", f.startedBefore);
  if (f.pipeline) {
    // pipelines is a JSON list: the name as JSON writes it, quotes included, is one whole member.
    const member = `%${literalLike(JSON.stringify(f.pipeline))}%`;
    s = s.where(sql<boolean>`cast(${sql.ref("pipelines")} as text) like ${member} escape '\\'`);
  }
  return s as Q;
}

/**
 * One page of the runs a query matches, newest first (by start, then id), each its whole
 * skillsync_runs row; `after` continues past a run (its `started_at` as stored, and its id).
 */
export function runsPage(
  w: Warehouse,
  f: RunsQuery,
  limit: number,
  after?: { at: string; id: string },
): Promise<Record<string, unknown>[]> {
  let q = filtered(w.db.selectFrom("skillsync_runs").selectAll(), f);
  if (after) {
    const { at, id } = after;
    q = q.where((eb) =>
      eb.or([eb("started_at", "<", at), eb.and([eb("started_at", "=", at), eb("id", "<", id)])]),
    );
  }
  return q.orderBy("started_at", "desc").orderBy("id", "desc").limit(limit).execute();
}

/** How many runs a query matches. */
export async function countRuns(w: Warehouse, f: RunsQuery): Promise<number> {
  const row = await filtered(
    w.db.selectFrom("skillsync_runs").select((eb) => eb.fn.countAll().as("n")),
    f,
  ).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Every pipeline a run of the warehouse ran, sorted. */
export async function runPipelines(w: Warehouse): Promise<string[]> {
  const rows = await w.db
    .selectFrom("skillsync_runs")
    .select(sql<string>`cast(${sql.ref("pipelines")} as text)`.as("p"))
    .distinct()
    .execute();
  const names = new Set(rows.flatMap((r) => readJson<string[]>(r.p)));
  return [...names].sort();
}
