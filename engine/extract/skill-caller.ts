import type { Kysely } from "kysely";
import type { RateStore } from "../../connectors/skill-api/rate-gate.js";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import { type CallEnd, finishCall } from "../../store/calls.js";
import type { Prepare } from "./planned-calls.js";

/** What the runner needs of the Skill API client. */
export interface SkillCaller {
  prepare: Prepare;
  send(
    prepared: { slug: string; body: Record<string, unknown> },
    opts?: {
      signal?: AbortSignal | undefined;
      onRateLimited?: (() => void) | undefined;
      rateLimit?: number | undefined;
    },
  ): Promise<{
    data: unknown;
    /** The whole answer as received, its `data` inside (SkillClient's `CallResult.text`). */
    text?: string | null;
    traceId: string | null;
    status: number;
    attempts: number;
    elapsedMs: number;
  }>;
  /** Paces calls with every process on the warehouse that uses the same key (SkillClient does). */
  shareRateLimit?(storeFor: (account: string, declared: number | null) => RateStore): void;
  /** Where the API is, for messages (the client's resolved config). */
  readonly config?: { baseUrl: string; connections?: number | null };
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

/**
 * A call that failed, recorded the one way in both places: its ledger row finished with the
 * failure's code and message (`end` says the outcome — `failed`, or `ambiguous` when it may have
 * been billed — and the credits it keeps), then the failure recorded on its run (recordFailure).
 */
export async function failCall(
  db: Kysely<AnyDB>,
  run: FailureLog,
  callId: number,
  f: CallFailure,
  end: Omit<CallEnd, "errorCode" | "error">,
  say = true,
): Promise<void> {
  await finishCall(db, callId, { ...end, errorCode: f.code, error: f.message });
  recordFailure(run, f, say);
}

/** The run-wide flags a run keeps; a paid call or a report sets them the way any call would. */
export interface RunState {
  stop: boolean;
  stopReason: string | undefined;
  authFailure: boolean;
  ceiling: boolean;
  /** `--strict` (or a pipeline's `strict: true`) met rejected records or a mapping that loses data. */
  strictFailure?: boolean;
  /** Records were rejected and neither `rejects: allow` nor `--allow-rejects` accepts it: outcome `warnings`. */
  rejectWarning?: boolean;
  /** The run stopped because UNREACHABLE_AFTER connections in a row failed before sending. */
  unreachable?: boolean;
  /** Calls in a row whose connection failed before anything was sent (reset by any answer). */
  unreachableStreak?: number;
  /** What the last of those connections ran into ("connection refused 127.0.0.1:1"). */
  unreachableDetail?: string;
}
