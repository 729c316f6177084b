import type { RunCounters } from "../../store/runs.js";
import type { ParamValues } from "../define/params.js";
import type { Price } from "../define/prices.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { CallFailure } from "../extract/skill-caller.js";
import type { QualitySeen } from "../run/quality.js";

/**
 * One queued batch of a run's calls: all a worker on any machine needs to make, store and load
 * them as the run's own process would — the pipeline as written (its text, not a path the worker
 * may not have), its params, the prices the run reserves at and the run's ceiling scope.
 */
export interface BatchJob {
  runId: string;
  /** The run's `--max-credits` scope: every worker reserves under the same one. */
  invocation: string;
  maxCredits: number | undefined;
  /** The run is a resumed one: a call an earlier part loaded is not loaded again. */
  resumed: boolean;
  pipeline: { file: string; text: string; params: ParamValues; freshnessMs: number };
  prices: [string, Price][];
  calls: PlannedCall[];
}

/** What one attempt at a batch counted and met, saved as it goes (skillsync_run_jobs.outcome). */
export interface BatchOutcome {
  counters: RunCounters;
  failures: CallFailure[];
  seen: QualitySeen;
  /** Every call of the batch got its answer loaded (or was refused for good). */
  complete: boolean;
  /** Why the attempt stopped the run (a ceiling, a refused key, …); undefined when it did not. */
  stopReason: string | undefined;
  ceiling: boolean;
  authFailure: boolean;
  strictFailure?: boolean | undefined;
}
