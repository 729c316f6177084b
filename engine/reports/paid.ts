import type { Kysely } from "kysely";
import type { AnyDB } from "../../connectors/warehouse/open.js";
import { requestHash } from "../../core/hash.js";
import { finishCall } from "../../store/calls.js";
import { deleteChunks, storeChunks } from "../../store/chunks.js";
import { storeResponse, upsertResponseRows } from "../../store/responses.js";
import { estimateCredits } from "../define/prices.js";
import { type PaidCallSpec, type Sent, succeeded } from "../extract/paid-call.js";
import type { JobContext } from "./context.js";

export { paidCall } from "../extract/paid-call.js";
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
 * response. A streamed download's gzipped `data` is in the `spool` file; it is stored in pieces
 * read from the file one at a time, so no buffer of a whole compressed part exists: bound as one
 * parameter, the driver's copy of it was a large download's peak.
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
    await storeCompressed(trx, call, spool, ctx.runId, done.result.traceId, done.receivedAt);
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
    // A whole body replacing a chunked one: its pieces would otherwise stay behind, unread.
    await deleteChunks(trx, call.hash);
  }
  await finishCall(trx, done.callId, succeeded(done.result));
}

/**
 * Stores an already gzipped `data` (a streamed download, in the spool file) under the same key as
 * storeResponse would: the row keeps the metadata, an empty body and the number of pieces.
 */
async function storeCompressed(
  trx: Kysely<AnyDB>,
  call: ReportCall,
  spool: string,
  runId: string,
  traceId: string | null,
  receivedAt: string,
): Promise<void> {
  const chunks = await storeChunks(trx, call.hash, spool);
  await upsertResponseRows(trx, [
    {
      request_hash: call.hash,
      skill: call.skill,
      request: JSON.stringify(call.body),
      body: Buffer.alloc(0),
      chunks,
      body_form: "data",
      trace_id: traceId,
      run_id: runId,
      received_at: receivedAt,
    },
  ]);
}
