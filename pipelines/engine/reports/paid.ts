import type { Kysely } from "kysely";
import { AccessError, AuthError, SkillApiError } from "../../../connectors/skill-api/errors.js";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import { CreditCeilingError } from "../../../core/errors.js";
import { releaseCredits, reserveCredits } from "../budget.js";
import { requestHash } from "../hash.js";
import { finishCall, insertCall, storeResponse } from "../ledger.js";
import { estimateCredits } from "../prices.js";
import type { SkillCaller } from "../runner.js";
import type { JobContext } from "./context.js";

/** A report call ready to send: validated body, its identity and its price. */
export interface ReportCall {
  skill: string;
  body: Record<string, unknown>;
  hash: string;
  credits: number;
}

/** Validates a status or download request and prices it from the price table. */
export function reportCall(ctx: JobContext, skill: string, body: Record<string, unknown>): ReportCall {
  const prepared = ctx.client.prepare(skill, body);
  return {
    skill,
    body: prepared.body,
    hash: requestHash(skill, prepared.body),
    credits: estimateCredits(ctx.prices, skill, 1),
  };
}

/** An answer; `stored` is the gzipped `data` when the answer was streamed (see streamDownload). */
type Sent = Awaited<ReturnType<SkillCaller["send"]>> & { stored?: Buffer };

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
  ctx: JobContext,
  call: ReportCall,
  alsoReserve?: (trx: Kysely<AnyDB>) => Promise<void>,
  send: () => Promise<Sent> = () => ctx.client.send({ slug: call.skill, body: call.body }),
): Promise<PaidOutcome> {
  const w = ctx.warehouse;
  const record = { runId: ctx.runId, pipeline: ctx.pipeline.name, skill: call.skill, requestHash: call.hash };
  let callId: number;
  try {
    callId = await w.db.transaction().execute(async (trx) => {
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
    ctx.report(err.message);
    return { ok: false, error: err, ambiguous };
  }
}

/** Completes a successful paid call inside the caller's transaction: ledger success, stored response. */
export async function finishPaid(
  trx: Kysely<AnyDB>,
  ctx: JobContext,
  call: ReportCall,
  done: { callId: number; result: Sent; receivedAt: string },
  store: boolean,
): Promise<void> {
  if (store && done.result.stored) {
    await storeCompressed(trx, call, done.result.stored, ctx.runId, done.result.traceId, done.receivedAt);
  } else if (store) {
    await storeResponse(trx, {
      hash: call.hash,
      skill: call.skill,
      request: call.body,
      data: done.result.data ?? {},
      traceId: done.result.traceId,
      runId: ctx.runId,
      receivedAt: done.receivedAt,
    });
  }
  await finishCall(trx, done.callId, {
    outcome: "succeeded",
    httpStatus: done.result.status,
    traceId: done.result.traceId,
    attempts: done.result.attempts,
    elapsedMs: done.result.elapsedMs,
  });
}

/** Stores an already gzipped `data` (a streamed download) the way storeResponse stores any answer. */
async function storeCompressed(
  trx: Kysely<AnyDB>,
  call: ReportCall,
  body: Buffer,
  runId: string,
  traceId: string | null,
  receivedAt: string,
): Promise<void> {
  const values = {
    request_hash: call.hash,
    skill: call.skill,
    request: JSON.stringify(call.body),
    body,
    trace_id: traceId,
    run_id: runId,
    received_at: receivedAt,
  };
  await trx
    .insertInto("skillsync_responses")
    .values(values)
    .onConflict((oc) =>
      oc
        .column("request_hash")
        .doUpdateSet({ body, trace_id: traceId, run_id: runId, received_at: receivedAt }),
    )
    .execute();
}

/** The gzipped `data` stored for a request, if any (read whole: it is the compressed size). */
export async function storedBody(db: Kysely<AnyDB>, hash: string): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom("skillsync_responses")
    .select("body")
    .where("request_hash", "=", hash)
    .executeTakeFirst();
  if (!row) return undefined;
  return Buffer.isBuffer(row.body) ? row.body : Buffer.from(row.body as Uint8Array);
}
