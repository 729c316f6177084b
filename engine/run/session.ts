import type { Kysely } from "kysely";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import { type Ceiling, warehouseCeilings } from "../../store/budget.js";
import type { OutboxTarget } from "../../store/outbox.js";
import { recordBudgetCrossings } from "../../store/outbox-events.js";
import {
  endRun,
  type RunCounters,
  type RunStatus,
  startRun,
  type Trigger,
  updateRun,
  zeroCounters,
} from "../../store/runs.js";
import type { SheetReader } from "../define/inputs.js";
import type { PriceTable } from "../define/prices.js";
import type { CallFailure, RunState, SkillCaller } from "../extract/skill-caller.js";

/** What a run's pipelines share besides the session: the client, prices, sheet reader and width. */
export interface RunEnv {
  client: SkillCaller;
  prices: PriceTable;
  sheet: SheetReader | undefined;
  concurrency: number;
  /** `--strict`: warnings about what was loaded fail the run (as a pipeline's `strict: true`). */
  strict?: boolean | undefined;
  /** `--allow-rejects`: rejected records leave the run `succeeded` (as a pipeline's `rejects: allow`). */
  allowRejects?: boolean | undefined;
  /** `--refresh`: date windows recorded done are asked again too (engine/run/windows/run-windowed.ts). */
  refresh?: boolean | undefined;
}

export interface RunReporter {
  update(counters: RunCounters, note?: string): void;
}

/** One run's bookkeeping, shared by everything that makes calls for it. */
export interface RunSession {
  warehouse: Warehouse;
  runId: string;
  resumed: boolean;
  counters: RunCounters;
  failures: CallFailure[];
  /** What the answers showed about the mappings (empty columns, unmapped members, rejects). */
  warnings: string[];
  /** What a person should know that is neither a warning nor a failure (a pipeline with nothing to ask, and why). */
  notes: string[];
  state: RunState;
  /** This invocation's ceiling scope: `--max-credits` and pipelines' `maxCredits` hang under it. */
  invocation: string;
  /** `--max-credits` and the warehouse's daily and monthly budgets. */
  ceilings: Ceiling[];
  report: (note?: string) => void;
  signal: AbortSignal | undefined;
  /**
   * Runs inside each load transaction with the calls and rows it adds (a worker's attempt records
   * its counters there, so a kill never separates rows from their count).
   */
  alongLoad?:
    | ((db: Kysely<AnyDB>, added: { calls: number; rows: number; rejected: number }) => Promise<void>)
    | undefined;
}

export interface SessionOptions {
  warehouse: Warehouse;
  /** Runs with the same key resume each other. */
  key: string;
  pipelines: string[];
  params: unknown;
  trigger: Trigger;
  maxCredits?: number | undefined;
  /** The run's credits are priced by guesses, not a price file (skillsync_runs.credits_estimated). */
  creditsEstimated?: boolean | undefined;
  reporter?: RunReporter | undefined;
  signal?: AbortSignal | undefined;
  onStart?: ((runId: string, resumed: boolean) => void) | undefined;
  /** Webhooks told of the run's end and of budgets it takes past 80 % or 100 % (docs/notifications.md). */
  notify?: readonly OutboxTarget[] | undefined;
}

const HEARTBEAT_MS = 5000;

/**
 * The bookkeeping of one process's share of a run: a whole local run, or one worker's batch of a
 * run spread over workers — which then shares the run's `invocation` scope, so `--max-credits`
 * holds over every worker.
 */
export async function newSession(
  w: Warehouse,
  o: {
    runId: string;
    resumed: boolean;
    counters: RunCounters;
    invocation: string;
    maxCredits: number | undefined;
    reporter?: RunReporter | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<RunSession> {
  const { counters } = o;
  return {
    warehouse: w,
    runId: o.runId,
    resumed: o.resumed,
    counters,
    failures: [],
    warnings: [],
    notes: [],
    state: { stop: false, stopReason: undefined, authFailure: false, ceiling: false },
    invocation: o.invocation,
    ceilings: [
      { scope: o.invocation, limit: o.maxCredits ?? null, label: "--max-credits" },
      ...(await warehouseCeilings(w)),
    ],
    report: (note) => o.reporter?.update({ ...counters }, note),
    signal: o.signal,
  };
}

/**
 * The lifecycle of every run (pipelines and report retries alike): start or resume its row, set its
 * ceilings, beat its heart while `body` makes the calls, turn an abort into a stop, and end the row
 * with the outcome. An error of `body` is recorded on the run first, then thrown.
 *
 * @example const { status } = await inRunSession({ warehouse, key, pipelines: ["x"], params: {}, trigger: "manual" }, body);
 */
export async function inRunSession<T>(
  o: SessionOptions,
  body: (s: RunSession) => Promise<T>,
): Promise<{ session: RunSession; status: RunStatus; result: T }> {
  const w = o.warehouse;
  const s = await startSession(o);
  const budgets = () =>
    recordBudgetCrossings(w, o.notify, budgetScopes(s.ceilings), {
      runId: s.runId,
      stoppedAt: s.state.ceiling ? stoppedAt(s.ceilings, s.state.stopReason) : undefined,
    }).catch(() => {});
  const unwatch = watchSession(o, s, budgets);
  let fatal: unknown;
  let result: T | undefined;
  try {
    result = await body(s);
  } catch (err) {
    fatal = err;
  } finally {
    unwatch();
  }
  if (o.notify?.length) await budgets();
  const status = await endRun(w, s.runId, s.counters, {
    notify: o.notify,
    fatal,
    aborted: o.signal?.aborted === true,
    state: s.state,
    failures: s.failures,
    warnings: s.warnings,
  });
  s.report();
  if (fatal) throw fatal;
  return { session: s, status, result: result as T };
}

/** Starts or resumes the run's row and opens its session. */
async function startSession(o: SessionOptions): Promise<RunSession> {
  const w = o.warehouse;
  const {
    id: runId,
    resumed,
    carried,
  } = await startRun(w, {
    key: o.key,
    pipelines: o.pipelines,
    params: o.params,
    trigger: o.trigger,
    creditsEstimated: o.creditsEstimated,
  });
  o.onStart?.(runId, resumed);
  // A resumed run's totals cover all its parts: `runs` shows what the whole run cost and loaded.
  return newSession(w, {
    runId,
    resumed,
    counters: { ...zeroCounters(), ...carried },
    invocation: `invocation:${runId}:${Date.now()}`,
    maxCredits: o.maxCredits,
    reporter: o.reporter,
    signal: o.signal,
  });
}

/**
 * While the run's body runs: its heart beats (its counters saved, budgets told) and an abort turns
 * into a stop. Returns what ends both.
 */
function watchSession(o: SessionOptions, s: RunSession, budgets: () => Promise<void>): () => void {
  const heartbeat = setInterval(() => {
    void updateRun(o.warehouse, s.runId, s.counters).catch(() => {});
    if (o.notify?.length) void budgets();
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const onAbort = () => {
    s.state.stop = true;
    s.state.stopReason ??= "interrupted";
  };
  o.signal?.addEventListener("abort", onAbort);
  // Aborted while the run was being prepared: the event has already fired.
  if (o.signal?.aborted) onAbort();
  return () => {
    clearInterval(heartbeat);
    o.signal?.removeEventListener("abort", onAbort);
  };
}

const BUDGET_LABELS = ["daily budget", "monthly budget"];

/** The warehouse budgets among a run's ceilings (their scopes name the day or month). */
const budgetScopes = (ceilings: readonly Ceiling[]) =>
  ceilings.filter((c) => BUDGET_LABELS.includes(c.label)).map((c) => c.scope);

/** The budget a run was stopped at, from its stop reason ("stopped at the daily budget of …"). */
function stoppedAt(ceilings: readonly Ceiling[], reason: string | undefined): string[] {
  return ceilings
    .filter((c) => BUDGET_LABELS.includes(c.label) && reason?.includes(`the ${c.label}`))
    .map((c) => c.scope);
}
