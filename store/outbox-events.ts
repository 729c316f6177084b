import type { Kysely } from "kysely";
import { readJson } from "../connectors/warehouse/adapter.js";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { type EventDraft, type EventKind, eventIdOf, type OutboxTarget, writeEvent } from "./outbox.js";

const RUN_KINDS: Record<string, EventKind> = {
  failed: "run.failed",
  warnings: "run.warnings",
  ceiling: "run.ceiling",
};

/** The counters a run event carries (a structural subset of RunCounters). */
interface Counted {
  callsPlanned: number;
  callsDone: number;
  callsFailed: number;
  creditsSpent: number;
  rowsWritten: number;
  rowsRejected: number;
}

/**
 * The event of a run that ended `failed`, `warnings` or `ceiling` (none for other outcomes), read
 * inside the transaction that ends it. Its id is the run's end: a resumed run that ends the same
 * way again is a new event, the same end written twice is one.
 */
export async function runEvent(
  db: Kysely<AnyDB>,
  runId: string,
  status: string,
  c: Counted,
  detail: { stopReason?: string | undefined; error?: string | undefined },
): Promise<EventDraft | undefined> {
  const kind = RUN_KINDS[status];
  if (!kind) return undefined;
  const row = await db
    .selectFrom("skillsync_runs")
    .select(["pipelines", "trigger", "started_at", "finished_at"])
    .where("id", "=", runId)
    .executeTakeFirst();
  const finished = row?.finished_at ? new Date(row.finished_at as string).toISOString() : "";
  return {
    id: eventIdOf("run", runId, status, finished),
    kind,
    runId,
    payload: {
      runId,
      status,
      pipelines: readJson<string[]>(row?.pipelines) ?? [],
      trigger: row?.trigger ?? null,
      startedAt: row?.started_at ? new Date(row.started_at as string).toISOString() : null,
      finishedAt: finished || null,
      stopReason: detail.stopReason ?? null,
      error: detail.error?.slice(0, 500) ?? null,
      counters: {
        callsPlanned: c.callsPlanned,
        callsDone: c.callsDone,
        callsFailed: c.callsFailed,
        creditsSpent: c.creditsSpent,
        rowsWritten: c.rowsWritten,
        rowsRejected: c.rowsRejected,
      },
    },
  };
}

/**
 * Events for the warehouse's daily and monthly budgets that have crossed 80 % or 100 % of their
 * limit (reserved credits, as the reservations count them). `stoppedAt`: scopes a run was just
 * refused by, which count as 100 % though the next call never fitted. Each crossing has one id per
 * budget period, limit and threshold, so every process may look and it is still written once.
 */
async function budgetEvents(
  db: Kysely<AnyDB>,
  scopes: readonly string[],
  o: { runId?: string | undefined; stoppedAt?: readonly string[] | undefined },
): Promise<EventDraft[]> {
  if (!scopes.length) return [];
  const rows = await db
    .selectFrom("skillsync_budgets")
    .select(["scope", "limit_credits", "reserved"])
    .where("scope", "in", [...scopes])
    .where("limit_credits", "is not", null)
    .execute();
  const out: EventDraft[] = [];
  for (const r of rows) {
    const scope = String(r.scope);
    const limit = Number(r.limit_credits);
    const reserved = Number(r.reserved);
    const share = limit > 0 ? reserved / limit : 1;
    const full = share >= 1 - 1e-9 || o.stoppedAt?.includes(scope) === true;
    const [period = scope, day = ""] = scope.split(":");
    for (const pct of [80, 100] as const) {
      if (pct === 80 ? share < 0.8 && !full : !full) continue;
      out.push({
        id: eventIdOf("budget", scope, String(limit), String(pct)),
        kind: pct === 80 ? "budget.80" : "budget.100",
        runId: null,
        payload: {
          budget: period,
          period: day,
          threshold: pct,
          limitCredits: limit,
          reservedCredits: Math.round(reserved * 1e6) / 1e6,
          runId: o.runId ?? null,
        },
      });
    }
  }
  return out;
}

/** Writes the budget crossings `budgetEvents` finds, for these targets (nothing without targets). */
export async function recordBudgetCrossings(
  w: { db: Kysely<AnyDB> },
  targets: readonly OutboxTarget[] | undefined,
  scopes: readonly string[],
  o: { runId?: string | undefined; stoppedAt?: readonly string[] | undefined } = {},
): Promise<void> {
  if (!targets?.length) return;
  for (const e of await budgetEvents(w.db, scopes, o)) await writeEvent(w.db, targets, e);
}

/** A scheduled tick missed or skipped: one event per pipeline, tick and kind. */
export function tickEvent(
  pipeline: string,
  tickAt: Date,
  kind: "schedule.missed" | "schedule.skipped",
  note: string | undefined,
): EventDraft {
  return {
    id: eventIdOf(kind, pipeline, tickAt.toISOString()),
    kind,
    runId: null,
    payload: { pipeline, tickAt: tickAt.toISOString(), reason: note ?? null },
  };
}

/**
 * A sheet schedule's refresh that failed: its run could not start, or its rows or note could not be
 * written to the tab. One per schedule and tick, whoever writes it.
 */
export function refreshFailedEvent(
  s: { id: string; pipeline: string; spreadsheet: string; tab: string },
  tickAt: Date,
  reason: string,
  runId: string | null,
): EventDraft {
  return {
    id: eventIdOf("schedule.refresh-failed", s.id, tickAt.toISOString()),
    kind: "schedule.refresh-failed",
    runId,
    payload: {
      pipeline: s.pipeline,
      schedule: s.id,
      spreadsheet: s.spreadsheet,
      tab: s.tab,
      tickAt: tickAt.toISOString(),
      reason: reason.slice(0, 500),
    },
  };
}

/**
 * A worker that died holding a batch, found by the worker taking the batch over: one event per
 * lost worker and run, however many of its batches are taken over (by however many workers).
 */
export function workerLostEvent(o: {
  workerId: string;
  runId: string;
  jobId: string;
  pipeline: string;
  takenBy: string;
}): EventDraft {
  return {
    id: eventIdOf("worker.lost", o.workerId, o.runId),
    kind: "worker.lost",
    runId: o.runId,
    payload: { ...o },
  };
}
