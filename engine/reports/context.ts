import type { Warehouse } from "../../connectors/warehouse/open.js";
import type { Ceiling } from "../../store/budget.js";
import type { CallRecord } from "../../store/calls.js";
import type { RunCounters } from "../../store/runs.js";
import type { ParamValues } from "../define/params.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { PriceTable } from "../define/prices.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { reserveAlone } from "../extract/reservations.js";
import { type CallFailure, type RunState, recordFailure, type SkillCaller } from "../extract/skill-caller.js";

/** What the runner hands a report pipeline: its create calls and the run's bookkeeping. */
export interface ReportRunContext {
  warehouse: Warehouse;
  client: SkillCaller;
  pipeline: LoadedPipeline;
  params: ParamValues;
  /** The create calls, rendered and validated (one per input value; usually one). */
  calls: PlannedCall[];
  ceilings: Ceiling[];
  runId: string;
  prices: PriceTable;
  counters: RunCounters;
  failures: CallFailure[];
  state: RunState;
  report: (note?: string) => void;
  signal?: AbortSignal | undefined;
  /** A report loaded this recently for the same request is not created again. */
  freshnessMs: number;
}

/**
 * One report pipeline's view of the run, plus its own stop flag (a 403 stops only this pipeline)
 * and how its calls are reserved (each alone: a create's job row goes in with it).
 */
export interface JobContext extends Omit<ReportRunContext, "calls"> {
  pipelineStop: { stop: boolean };
  reserve: (record: CallRecord) => Promise<number>;
}

/** A report pipeline's JobContext: its calls reserved one at a time under the run's ceilings. */
export function jobContext(run: Omit<ReportRunContext, "calls">): JobContext {
  return {
    ...run,
    pipelineStop: { stop: false },
    reserve: (record) => reserveAlone(run.warehouse, run.ceilings, record),
  };
}

export function stopped(ctx: JobContext): boolean {
  return ctx.state.stop || ctx.pipelineStop.stop || ctx.signal?.aborted === true;
}

/** Records a report-level failure (not a refused call): the run ends failed, the job says why. */
export function reportFailure(ctx: JobContext, requestHash: string, code: string, message: string): void {
  recordFailure(ctx, {
    pipeline: ctx.pipeline.name,
    skill: ctx.pipeline.skill,
    requestHash,
    code,
    message,
    ambiguous: false,
  });
}
