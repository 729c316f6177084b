import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";

const TABLE = "skillsync_windows";

/** A date window whose calls all loaded: its identity, its days, and the run that asked it last. */
export interface WindowDone {
  key: string;
  pipeline: string;
  start: string;
  end: string;
  /** The range end of the run that asked it (a later run's lookback reads it). */
  askedThrough: string;
  runId: string;
  /** Its calls loaded (pages included). */
  calls: number;
}

/** What a window's record says to a later run. */
export interface WindowSeen {
  askedThrough: string;
  runId: string;
}

/** The records of these windows (by key), those there are: one query per 500 keys. */
export async function windowRecords(db: Kysely<AnyDB>, keys: string[]): Promise<Map<string, WindowSeen>> {
  const out = new Map<string, WindowSeen>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom(TABLE)
      .select(["window_key", "asked_through", "run_id"])
      .where("window_key", "in", keys.slice(i, i + 500))
      .execute();
    for (const r of rows)
      out.set(String(r.window_key), { askedThrough: String(r.asked_through), runId: String(r.run_id) });
  }
  return out;
}

/** Records windows done (again): a window asked anew takes the newer run's range end and id. */
export async function recordWindows(db: Kysely<AnyDB>, done: WindowDone[]): Promise<void> {
  const at = new Date().toISOString();
  for (let i = 0; i < done.length; i += 200) {
    await db
      .insertInto(TABLE)
      .values(
        done.slice(i, i + 200).map((d) => ({
          window_key: d.key,
          pipeline: d.pipeline,
          window_start: d.start,
          window_end: d.end,
          asked_through: d.askedThrough,
          run_id: d.runId,
          calls: d.calls,
          done_at: at,
        })),
      )
      .onConflict((oc) =>
        oc.column("window_key").doUpdateSet((eb) => ({
          asked_through: eb.ref("excluded.asked_through"),
          run_id: eb.ref("excluded.run_id"),
          calls: eb.ref("excluded.calls"),
          done_at: eb.ref("excluded.done_at"),
        })),
      )
      .execute();
  }
}

/** Forgets a pipeline's recorded windows: its next run asks every window of its range again. */
export async function forgetWindows(db: Kysely<AnyDB>, pipeline: string): Promise<number> {
  const r = await db.deleteFrom(TABLE).where("pipeline", "=", pipeline).executeTakeFirst();
  return Number(r.numDeletedRows);
}
