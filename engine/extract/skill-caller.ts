import type { Prepare } from "./planned-calls.js";

/** What the runner needs of the Skill API client. */
export interface SkillCaller {
  prepare: Prepare;
  send(
    prepared: { slug: string; body: Record<string, unknown> },
    opts?: { signal?: AbortSignal | undefined },
  ): Promise<{ data: unknown; traceId: string | null; status: number; attempts: number; elapsedMs: number }>;
  /** Where the API is, for messages (the client's resolved config). */
  readonly config?: { baseUrl: string };
}

export interface CallFailure {
  pipeline: string;
  skill: string;
  requestHash: string;
  code: string;
  message: string;
  ambiguous: boolean;
}

/** Where a run keeps its failures: the counter, the list (the run's error and summary) and the reporter. */
export interface FailureLog {
  counters: { callsFailed: number };
  failures: CallFailure[];
  report: (note?: string) => void;
}

/**
 * Records a failed call on its run — counted, listed, and (`say`) told as it happens — the one way
 * every failure is recorded: refused or lost calls, calls not sent so as not to pay twice, answers
 * that cannot be loaded, reports that fail.
 */
export function recordFailure(run: FailureLog, f: CallFailure, say = true): void {
  run.counters.callsFailed++;
  run.failures.push(f);
  if (say) run.report(f.message);
}

/** The run-wide flags a run keeps; a paid call or a report sets them the way any call would. */
export interface RunState {
  stop: boolean;
  stopReason: string | undefined;
  authFailure: boolean;
  ceiling: boolean;
  /** `--strict` (or a pipeline's `strict: true`) met rejected records or a mapping that loses data. */
  strictFailure?: boolean;
  /** Calls in a row whose connection failed before anything was sent (reset by any answer). */
  unreachableStreak?: number;
}
