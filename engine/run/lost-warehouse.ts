import { isConnectionLost } from "../../connectors/warehouse/driver-errors.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import type { RunCounters } from "../../store/runs.js";

/** Where a run was when its warehouse connection went: the run, its pipeline, its calls so far. */
export interface RunPlace {
  runId: string;
  pipeline: string;
  counters: RunCounters;
}

/**
 * A lost warehouse connection (the server ended the session, the network dropped it) said as
 * such — what was lost, what was in progress, that nothing was half-written and how to go on —
 * instead of the driver's bare "Connection terminated unexpectedly". Exit 1: a failure during
 * work, resumable. Undefined for any other error.
 */
export function lostWarehouse(
  err: unknown,
  w: Warehouse,
  at: RunPlace | undefined,
): SkillsyncError | undefined {
  if (!isConnectionLost(err)) return undefined;
  const reason = err instanceof Error ? err.message : String(err);
  const where = at
    ? `during run ${at.runId}, in pipeline ${at.pipeline} with ${at.counters.callsDone} of ${at.counters.callsPlanned} calls done`
    : "while the run was starting";
  return new SkillsyncError(
    "WAREHOUSE_LOST",
    `the connection to the warehouse ${w.description} was lost (${reason}) ${where}. Nothing was half-written: each answer is stored, and its rows loaded, in transactions the server rolled back when the connection went. Run the same command again to resume: stored answers are reused and loaded pages skipped`,
    ExitCode.failure,
    { cause: err },
  );
}
