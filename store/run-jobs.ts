import type { Kysely } from "kysely";
import { readJson } from "../connectors/warehouse/adapter.js";
import type { AnyDB, Warehouse } from "../connectors/warehouse/open.js";
import { redact } from "../core/redact.js";
import { type OutboxTarget, writeEvent } from "./outbox.js";
import { workerLostEvent } from "./outbox-events.js";
import { workerAlive } from "./workers.js";

/**
 * One attempt at a queued batch: `active` while a worker runs it; `done`; `released` when its
 * worker gave it back unfinished (drained, or an error); `superseded` once another attempt took over.
 */
export type AttemptState = "active" | "released" | "done" | "superseded";

export interface Attempt<O> {
  jobId: string;
  workerId: string;
  pipeline: string;
  state: AttemptState;
  outcome: O | undefined;
  /** The worker's process lives (an `active` attempt of a dead worker is abandoned). */
  workerAlive: boolean;
}

/** Records that a worker takes a batch now (replacing its own earlier attempt at it, if any). */
export async function startAttempt(
  w: Warehouse,
  a: { jobId: string; workerId: string; runId: string; pipeline: string },
): Promise<void> {
  const started = new Date().toISOString();
  await w.db
    .insertInto("skillsync_run_jobs")
    .values({
      job_id: a.jobId,
      worker_id: a.workerId,
      run_id: a.runId,
      pipeline: a.pipeline,
      state: "active",
      started_at: started,
    })
    .onConflict((oc) =>
      oc
        .columns(["job_id", "worker_id"])
        .doUpdateSet({ state: "active", outcome: null, started_at: started, finished_at: null }),
    )
    .execute();
}

/** The invocation whose batches a run's workers make now (runWantsWork). */
export async function setRunInvocation(w: Warehouse, runId: string, invocation: string): Promise<void> {
  await w.db.updateTable("skillsync_runs").set({ invocation }).where("id", "=", runId).execute();
}

/** What an attempt counted and met so far (`done`: it ended, every call of its batch settled). */
export async function saveAttempt<O>(
  w: Warehouse | { db: Kysely<AnyDB> },
  jobId: string,
  workerId: string,
  outcome: O,
  state: AttemptState = "active",
): Promise<void> {
  await w.db
    .updateTable("skillsync_run_jobs")
    .set({
      outcome: redact(JSON.stringify(outcome)),
      state,
      ...(state === "active" ? {} : { finished_at: new Date().toISOString() }),
    })
    .where("job_id", "=", jobId)
    .where("worker_id", "=", workerId)
    .execute();
}

/**
 * Saves an attempt's outcome as `merge` makes it from the one stored, read under the row's lock: a
 * save racing a load's transaction (which saves its own, inside it, on another connection) waits
 * for it and sees what it committed, so the load's counts are never written back to older ones.
 */
export async function saveAttemptOver<O>(
  w: Warehouse,
  jobId: string,
  workerId: string,
  merge: (stored: O | undefined) => O,
  state: AttemptState = "active",
): Promise<void> {
  await w.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("skillsync_run_jobs")
      .select("outcome")
      .where("job_id", "=", jobId)
      .where("worker_id", "=", workerId);
    if (w.adapter.selectForUpdate) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    const stored = row?.outcome ? (readJson<O>(row.outcome) ?? undefined) : undefined;
    await saveAttempt({ db: trx }, jobId, workerId, merge(stored), state);
  });
}

/**
 * Earlier attempts of a job that a new one takes over: they no longer count towards the run.
 * `lost`: those of workers that died holding it, told to these webhooks in the same transaction.
 */
export async function supersede(
  w: Warehouse,
  jobId: string,
  workerIds: string[],
  lost?: {
    workerIds: string[];
    runId: string;
    pipeline: string;
    takenBy: string;
    notify?: readonly OutboxTarget[];
  },
): Promise<void> {
  if (!workerIds.length) return;
  await w.db.transaction().execute(async (db) => {
    await db
      .updateTable("skillsync_run_jobs")
      .set({ state: "superseded", finished_at: new Date().toISOString() })
      .where("job_id", "=", jobId)
      .where("worker_id", "in", workerIds)
      .execute();
    if (!lost?.notify?.length) return;
    for (const workerId of lost.workerIds)
      await writeEvent(db, lost.notify, workerLostEvent({ ...lost, workerId, jobId }));
  });
}

/**
 * Every attempt of a job, or of a run's pipeline, with whether its worker lives. `changedSince`:
 * only the attempts that may have changed since then — unfinished ones, and those finished after
 * it (a finished attempt changes no more) — so following a run of thousands of batches does not
 * read them all every time.
 */
export async function attempts<O>(
  w: Warehouse,
  by: { jobId: string } | { runId: string; pipeline: string; changedSince?: string | undefined },
): Promise<Attempt<O>[]> {
  let q = w.db
    .selectFrom("skillsync_run_jobs as j")
    .leftJoin("skillsync_workers as wk", "wk.id", "j.worker_id")
    .select([
      "j.job_id",
      "j.worker_id",
      "j.pipeline",
      "j.state",
      "j.outcome",
      "wk.host",
      "wk.pid",
      "wk.heartbeat_at",
      "wk.stopped_at",
    ])
    .orderBy("j.started_at");
  if ("jobId" in by) q = q.where("j.job_id", "=", by.jobId);
  else {
    q = q.where("j.run_id", "=", by.runId).where("j.pipeline", "=", by.pipeline);
    const since = by.changedSince;
    if (since)
      q = q.where((eb) => eb.or([eb("j.finished_at", "is", null), eb("j.finished_at", ">=", since)]));
  }
  const rows = await q.execute();
  return rows.map((r) => ({
    jobId: String(r.job_id),
    workerId: String(r.worker_id),
    pipeline: String(r.pipeline),
    state: r.state as AttemptState,
    outcome: r.outcome ? (JSON.parse(String(r.outcome)) as O) : undefined,
    workerAlive: r.host !== null && workerAlive(r),
  }));
}
