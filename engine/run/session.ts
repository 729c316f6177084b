import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type Ceiling, warehouseCeilings } from "../../store/budget.js";
import {
  endRun,
  type RunCounters,
  type RunStatus,
  startRun,
  type Trigger,
  updateRun,
  zeroCounters,
} from "../../store/runs.js";
import type { CallFailure, RunState } from "../extract/skill-caller.js";

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
  state: RunState;
  /** This invocation's ceiling scope: `--max-credits` and pipelines' `maxCredits` hang under it. */
  invocation: string;
  /** `--max-credits` and the warehouse's daily and monthly budgets. */
  ceilings: Ceiling[];
  report: (note?: string) => void;
  signal: AbortSignal | undefined;
}

export interface SessionOptions {
  warehouse: Warehouse;
  /** Runs with the same key resume each other. */
  key: string;
  pipelines: string[];
  params: unknown;
  trigger: Trigger;
  maxCredits?: number | undefined;
  reporter?: RunReporter | undefined;
  signal?: AbortSignal | undefined;
  onStart?: ((runId: string, resumed: boolean) => void) | undefined;
}

const HEARTBEAT_MS = 5000;

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
  const {
    id: runId,
    resumed,
    carried,
  } = await startRun(w, {
    key: o.key,
    pipelines: o.pipelines,
    params: o.params,
    trigger: o.trigger,
  });
  o.onStart?.(runId, resumed);
  // A resumed run's totals cover all its parts: `runs` shows what the whole run cost and loaded.
  const counters = { ...zeroCounters(), ...carried };
  const invocation = `invocation:${runId}:${Date.now()}`;
  const s: RunSession = {
    warehouse: w,
    runId,
    resumed,
    counters,
    failures: [],
    warnings: [],
    state: { stop: false, stopReason: undefined, authFailure: false, ceiling: false },
    invocation,
    ceilings: [
      { scope: invocation, limit: o.maxCredits ?? null, label: "--max-credits" },
      ...(await warehouseCeilings(w)),
    ],
    report: (note) => o.reporter?.update({ ...counters }, note),
    signal: o.signal,
  };
  const heartbeat = setInterval(() => void updateRun(w, runId, counters).catch(() => {}), HEARTBEAT_MS);
  heartbeat.unref();
  const onAbort = () => {
    s.state.stop = true;
    s.state.stopReason ??= "interrupted";
  };
  o.signal?.addEventListener("abort", onAbort);
  // Aborted while the run was being prepared: the event has already fired.
  if (o.signal?.aborted) onAbort();

  let fatal: unknown;
  let result: T | undefined;
  try {
    result = await body(s);
  } catch (err) {
    fatal = err;
  } finally {
    clearInterval(heartbeat);
    o.signal?.removeEventListener("abort", onAbort);
  }
  const status = await endRun(w, runId, counters, {
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
