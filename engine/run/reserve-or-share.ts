import { type CallRecord, insertCall } from "../../store/calls.js";
import type { StoredResponse } from "../../store/responses.js";
import { awaitFlight } from "../extract/await-flight.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { ItemsTaken } from "../extract/reservations.js";
import { failCall } from "../extract/skill-caller.js";
import type { CallRun } from "./call-run.js";

/** What a call gets before it is sent: a ledger id to send under, a stored or shared answer, or nothing. */
export type Claim =
  | { callId: number }
  | { stored: StoredResponse }
  | { shared: StoredResponse }
  | { itemsTaken: ItemsTaken }
  | { error: unknown }
  | { skipped: true };

/**
 * The claim step of a call: reserved, or the same request another live run has in flight awaited
 * and its answer taken (single flight: never sent twice at once, whichever run asks). When that
 * call ends without an answer, this one is reserved anew; when it ended ambiguous (possibly billed,
 * answer lost), this call fails the way its own ambiguous call would, without sending. The store is
 * looked at first, in the reservation's transaction (reservations.ts), shared with the calls asking
 * at the same moment: a fresh stored answer (or, for a batch split per item, items stored or in
 * flight elsewhere) is claimed instead.
 */
export async function claimCall(run: CallRun, call: PlannedCall): Promise<Claim> {
  const p = run.pipeline;
  const record = {
    runId: run.runId,
    pipeline: p.name,
    skill: p.skill,
    requestHash: call.hash,
    credits: call.credits,
  };
  const items = run.itemRun && run.freshnessMs > 0 ? call.parts?.hashes : undefined;
  for (;;) {
    const r = await run.reservations.reserve(record, items).catch((error: unknown) => ({ error }));
    if (!("inFlight" in r)) return r;
    const end = await awaitFlight(run.warehouse, r.inFlight, {
      stopped: () => run.state.stop || run.pipelineStop.stop,
    });
    if (end.kind === "answered") return { shared: end.stored };
    if (end.kind === "reserve") continue;
    if (end.kind === "stopped") return { skipped: true };
    const message =
      end.kind === "ambiguous"
        ? `run ${r.inFlight.runId} sent this same request and lost its answer after it may have been billed; not sent again so as not to pay twice: check the account's usage, then run again`
        : `run ${r.inFlight.runId} has had this same request in flight for over 10 minutes; not sent so as not to pay twice: run again once that run has ended`;
    await failWithoutSending(
      run,
      record,
      end.kind === "ambiguous" ? "SHARED_AMBIGUOUS" : "SHARED_TIMEOUT",
      message,
    );
    run.pipelineStop.failed++;
    return { skipped: true };
  }
}

/** A call given up without being sent: a failed ledger row (0 credits) and a failure of the run. */
export async function failWithoutSending(
  s: CallRun,
  record: CallRecord,
  code: string,
  message: string,
): Promise<void> {
  const id = await insertCall(s.warehouse.db, { ...record, credits: 0 }, "failed");
  await failCall(
    s.warehouse.db,
    s,
    id,
    {
      pipeline: record.pipeline,
      skill: record.skill,
      requestHash: record.requestHash,
      code,
      message,
      ambiguous: code === "SHARED_AMBIGUOUS",
    },
    { outcome: "failed", credits: 0 },
  );
}
