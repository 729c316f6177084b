import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import type { AnyDB } from "../../../connectors/warehouse/open.js";
import { requestHash } from "../hash.js";
import { finishCall, storeResponse } from "../ledger.js";
import type { PaidCallSpec, Sent } from "../paid-call.js";
import { estimateCredits } from "../prices.js";
import type { JobContext } from "./context.js";

export { type PaidOutcome, paidCall } from "../paid-call.js";
/** A report call ready to send: validated body, its identity and its price. */
export type ReportCall = PaidCallSpec;

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

/**
 * Completes a successful paid call inside the caller's transaction: ledger success, stored
 * response. A streamed download's gzipped `data` is in the `spool` file; it is read only here,
 * synchronously, so the buffer of a whole compressed part lives for this statement alone: kept
 * longer, it was promoted and stayed in memory as garbage until V8's next full collection.
 */
export async function finishPaid(
  trx: Kysely<AnyDB>,
  ctx: JobContext,
  call: ReportCall,
  done: { callId: number; result: Sent; receivedAt: string },
  store: boolean,
  spool?: string,
): Promise<void> {
  if (store && spool !== undefined) {
    await storeCompressed(trx, call, readFileSync(spool), ctx.runId, done.result.traceId, done.receivedAt);
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
