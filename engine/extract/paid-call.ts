import type { Kysely } from "kysely";
import { AccessError, AuthError, SkillApiError, TransportError } from "../../connectors/skill-api/errors.js";
import type { AnyDB, Warehouse } from "../../connectors/warehouse/open.js";
import { CreditCeilingError } from "../../core/errors.js";
import { type Ceiling, releaseCredits, reserveCredits } from "../../store/budget.js";
import { type CallEnd, type CallRecord, finishCall, insertCall } from "../../store/ledger.js";
import type { RunCounters } from "../../store/runs.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import type { CallFailure, RunState, SkillCaller } from "./skill-caller.js";

/** A call ready to send: validated body, its identity (request hash) and its estimated credits. */
export interface PaidCallSpec {
  skill: string;
  body: Record<string, unknown>;
  hash: string;
  credits: number;
}

/** The run's bookkeeping a paid call updates: ceilings, counters, failures and the stop flags. */
export interface PaidContext {
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
  /** Reserves a call (credits and its `reserved` ledger row) in a group with others (reservations.ts). */
  reserve?: ((record: CallRecord) => Promise<number>) | undefined;
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
 * One paid call, the engine's way: credits reserved and the ledger row written in one transaction
 * (with `alsoReserve`, e.g. the job row) BEFORE sending; a refusal gives the credits back; an
 * answer that may have been billed stays charged and is marked ambiguous. The caller finishes a
 * success with `finishPaid` inside its own transaction. Never retried here.
 */
export async function paidCall(
  ctx: PaidContext,
  call: PaidCallSpec,
  alsoReserve?: (trx: Kysely<AnyDB>) => Promise<void>,
  send: () => Promise<Sent> = () => ctx.client.send({ slug: call.skill, body: call.body }),
): Promise<PaidOutcome> {
  const w = ctx.warehouse;
  const record = { runId: ctx.runId, pipeline: ctx.pipeline.name, skill: call.skill, requestHash: call.hash };
  let callId: number;
  try {
    callId =
      ctx.reserve && !alsoReserve
        ? await ctx.reserve({ ...record, credits: call.credits })
        : await w.db.transaction().execute(async (trx) => {
            await reserveCredits(trx, ctx.ceilings, call.credits);
            const id = await insertCall(trx, { ...record, credits: call.credits }, "reserved");
            await alsoReserve?.(trx);
            return id;
          });
  } catch (err) {
    if (!(err instanceof CreditCeilingError)) throw err;
    ctx.state.stop = true;
    ctx.state.ceiling = true;
    ctx.state.stopReason ??= err.message;
    ctx.report(err.message);
    return { ok: false, error: err, ambiguous: false };
  }
  ctx.counters.creditsSpent += call.credits;
  ctx.report();
  try {
    // No abort signal: a paid call in flight finishes and is recorded, whatever happens to the run.
    const result = await send();
    ctx.state.unreachableStreak = 0;
    return { ok: true, callId, result, receivedAt: new Date().toISOString() };
  } catch (err) {
    if (!(err instanceof SkillApiError)) throw err;
    const ambiguous = err.maybeCharged;
    if (!ambiguous) {
      await releaseCredits(w.db, ctx.ceilings, call.credits);
      ctx.counters.creditsSpent -= call.credits;
    }
    await finishCall(w.db, callId, {
      outcome: ambiguous ? "ambiguous" : "failed",
      credits: ambiguous ? call.credits : 0,
      httpStatus: err.status,
      errorCode: err.code,
      error: err.message,
      traceId: err.traceId,
    });
    ctx.counters.callsFailed++;
    ctx.failures.push({
      pipeline: ctx.pipeline.name,
      skill: call.skill,
      requestHash: call.hash,
      code: err.code,
      message: err.message,
      ambiguous,
    });
    if (err instanceof AuthError) {
      ctx.state.stop = true;
      ctx.state.authFailure = true;
      ctx.state.stopReason ??= err.message;
    } else if (err instanceof AccessError) {
      ctx.pipelineStop.stop = true;
      ctx.state.authFailure = true;
      ctx.state.stopReason ??= err.message;
    }
    if (unreachable(ctx, err)) return { ok: false, error: err, ambiguous };
    ctx.report(err.message);
    return { ok: false, error: err, ambiguous };
  }
}

/** Connections failed in a row, before sending, that stop the run: the API is not there. */
export const UNREACHABLE_AFTER = 3;

/**
 * Counts connections that failed before anything was sent; the third in a row stops the run with
 * one line naming the API, instead of a line per planned call. True when the failure is one of
 * these (its own line is left out: the stop says it once).
 */
function unreachable(ctx: PaidContext, err: SkillApiError): boolean {
  if (!(err instanceof TransportError) || err.sent) {
    ctx.state.unreachableStreak = 0;
    return false;
  }
  ctx.state.unreachableStreak = (ctx.state.unreachableStreak ?? 0) + 1;
  if (ctx.state.unreachableStreak === UNREACHABLE_AFTER && !ctx.state.stop) {
    const where = ctx.client.config ? ` at ${ctx.client.config.baseUrl}` : "";
    const detail = /\(([^)]*)\)/.exec(err.message)?.[1] ?? err.message;
    ctx.state.stop = true;
    ctx.state.stopReason ??= `the API${where} is unreachable: ${detail} (${UNREACHABLE_AFTER} connections in a row failed before sending; nothing was spent on them)`;
    ctx.report(ctx.state.stopReason);
  }
  return true;
}
