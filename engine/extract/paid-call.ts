import {
  AccessError,
  AuthError,
  NotTheApiError,
  SkillApiError,
  TransportError,
} from "../../connectors/skill-api/errors.js";
import type { Warehouse } from "../../connectors/warehouse/open.js";
import { CreditCeilingError } from "../../core/errors.js";
import { type Ceiling, releaseCredits } from "../../store/budget.js";
import type { CallEnd, CallRecord } from "../../store/calls.js";
import type { RunCounters } from "../../store/runs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { type CallFailure, failCall, type RunState, type SkillCaller } from "./skill-caller.js";

/** A call ready to send: validated body, its identity (request hash) and its estimated credits. */
export interface PaidCallSpec {
  skill: string;
  body: Record<string, unknown>;
  hash: string;
  credits: number;
}

/** The run's bookkeeping a paid call updates: ceilings, counters, failures and the stop flags. */
export interface PaidRun {
  warehouse: Warehouse;
  client: SkillCaller;
  runId: string;
  pipeline: LoadedPipeline;
  ceilings: Ceiling[];
  counters: RunCounters;
  failures: CallFailure[];
  state: RunState;
  /** This pipeline's own stop flag: a 403 stops only the pipeline whose operation was refused. */
  pipelineStop: { stop: boolean };
  report: (note?: string) => void;
  /** The skill's known rate limit, calls per second (a price file's `rateLimit`): paced below it. */
  rateLimit?: number | undefined;
}

/** A paid call made in one go (a report's): reserved alone, then sent (`paidCall`). */
export interface PaidContext extends PaidRun {
  /**
   * Reserves the call — its credits against every ceiling and its `reserved` ledger row, committed
   * before it is sent — and gives its ledger id (reservations.ts `reserveAlone`: a report's job row goes in with it).
   */
  reserve: (record: CallRecord) => Promise<number>;
}

/** An answer as the client gives it. */
export type Sent = Awaited<ReturnType<SkillCaller["send"]>>;

/** The ledger's end of a call the service answered. */
export function succeeded(result: Sent): CallEnd {
  return {
    outcome: "succeeded",
    httpStatus: result.status,
    traceId: result.traceId,
    attempts: result.attempts,
    elapsedMs: result.elapsedMs,
  };
}

export type PaidOutcome =
  | { ok: true; callId: number; result: Sent; receivedAt: string }
  | { ok: false; error: SkillApiError; ambiguous: boolean }
  | { ok: false; error: CreditCeilingError; ambiguous: false };

/**
 * One paid call, the engine's way: reserved (`ctx.reserve`) BEFORE sending, then sent (`sendPaid`).
 * The caller keeps a success at once (a report's `finishPaid`). Never retried here.
 */
export async function paidCall(
  ctx: PaidContext,
  call: PaidCallSpec,
  send?: () => Promise<Sent>,
): Promise<PaidOutcome> {
  const record = { runId: ctx.runId, pipeline: ctx.pipeline.name, skill: call.skill, requestHash: call.hash };
  let callId: number;
  try {
    callId = await ctx.reserve({ ...record, credits: call.credits });
  } catch (err) {
    return refused(ctx, err);
  }
  return sendPaid(ctx, call, callId, send);
}

/** A reservation a ceiling refused stops the run there; any other error is thrown on. */
export function refused(run: PaidRun, err: unknown): PaidOutcome {
  if (!(err instanceof CreditCeilingError)) throw err;
  run.state.stop = true;
  run.state.ceiling = true;
  run.state.stopReason ??= err.message;
  run.report(err.message);
  return { ok: false, error: err, ambiguous: false };
}

/**
 * Sends a reserved call (`callId`), its credits counted as spent: a refusal gives them back; an
 * answer that may have been billed stays charged and is marked ambiguous. Never retried here.
 */
export async function sendPaid(
  run: PaidRun,
  call: PaidCallSpec,
  callId: number,
  send: () => Promise<Sent> = () =>
    run.client.send(
      { slug: call.skill, body: call.body },
      {
        onRateLimited: () => {
          run.counters.rateLimited++;
        },
        rateLimit: run.rateLimit,
      },
    ),
): Promise<PaidOutcome> {
  run.counters.creditsSpent += call.credits;
  run.report();
  try {
    // No abort signal: a paid call in flight finishes and is recorded, whatever happens to the run.
    const result = await send();
    run.state.unreachableStreak = 0;
    return { ok: true, callId, result, receivedAt: new Date().toISOString() };
  } catch (err) {
    if (!(err instanceof SkillApiError)) throw err;
    return sendFailed(run, call, callId, err);
  }
}

/** A call the service refused or lost: its credits given back unless it may have been billed, its failure recorded. */
async function sendFailed(
  run: PaidRun,
  call: PaidCallSpec,
  callId: number,
  err: SkillApiError,
): Promise<PaidOutcome> {
  const ambiguous = err.maybeCharged;
  if (!ambiguous) {
    await releaseCredits(run.warehouse.db, run.ceilings, call.credits);
    run.counters.creditsSpent -= call.credits;
  }
  // Said below, once the failure's effect on the run is known.
  await failCall(
    run.warehouse.db,
    run,
    callId,
    {
      pipeline: run.pipeline.name,
      skill: call.skill,
      requestHash: call.hash,
      code: err.code,
      message: err.message,
      ambiguous,
    },
    {
      outcome: ambiguous ? "ambiguous" : "failed",
      credits: ambiguous ? call.credits : 0,
      httpStatus: err.status,
      traceId: err.traceId,
    },
    false,
  );
  keyRefused(run, err);
  if (!unreachable(run, err)) run.report(err.message);
  return { ok: false, error: err, ambiguous };
}

/** A refused key stops the run; an operation the key may not use stops only its pipeline. */
function keyRefused(run: PaidRun, err: SkillApiError): void {
  if (err instanceof AuthError) {
    run.state.stop = true;
  } else if (err instanceof AccessError) {
    run.pipelineStop.stop = true;
  } else return;
  run.state.authFailure = true;
  run.state.stopReason ??= err.message;
}

/** Connections failed in a row, before sending, that stop the run: the API is not there. */
const UNREACHABLE_AFTER = 3;

/**
 * Counts connections that failed before anything was sent; the third in a row stops the run with
 * one line naming the API, instead of a line per planned call. True when the failure is one of
 * these (its own line is left out: the stop says it once).
 */
function unreachable(ctx: PaidRun, err: SkillApiError): boolean {
  const notSent = err instanceof TransportError && !err.sent;
  if (!notSent && !(err instanceof NotTheApiError)) {
    ctx.state.unreachableStreak = 0;
    return false;
  }
  ctx.state.unreachableStreak = (ctx.state.unreachableStreak ?? 0) + 1;
  ctx.state.unreachableDetail =
    err instanceof NotTheApiError
      ? `what answers there is not the Skill API: ${err.answered}`
      : (/\(([^)]*)\)/.exec(err.message)?.[1] ?? err.message);
  if (ctx.state.unreachableStreak === UNREACHABLE_AFTER && !ctx.state.stop) {
    ctx.state.stop = true;
    markUnreachable(ctx.state, ctx.client.config?.baseUrl);
    ctx.report(ctx.state.stopReason);
  }
  return true;
}

function markUnreachable(state: RunState, baseUrl: string | undefined): void {
  const n = state.unreachableStreak ?? 0;
  const tried = n === 1 ? "the one connection" : `${n} connections in a row`;
  state.unreachable = true;
  const them = n === 1 ? "it" : "them";
  state.stopReason ??= `the API${baseUrl ? ` at ${baseUrl}` : ""} is unreachable: ${state.unreachableDetail} (${tried} got no answer from the API; nothing was spent on ${them}). Check --base-url or SKILL_API_BASE_URL, and that the API is up`;
}

/**
 * At the end of a run of fewer than UNREACHABLE_AFTER calls: when every call failed to connect
 * before sending and none got through, the API was never reached — said as the streak says it
 * (the run's exit is then 2, a setting), not as a call failure.
 */
export function neverReached(
  state: RunState,
  counters: { callsDone: number; callsFailed: number },
  baseUrl: string | undefined,
): void {
  const n = state.unreachableStreak ?? 0;
  if (state.unreachable || n === 0 || counters.callsDone > 0 || counters.callsFailed !== n) return;
  markUnreachable(state, baseUrl);
}
