import { isLoaded } from "../../store/part-loads.js";
import type { StoredResponse } from "../../store/responses.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import type { CallAnswer, CallRun } from "./call-run.js";

/**
 * The answer of a call claimed without being sent (free): another run's call of the same request,
 * answered while this one waited, or a stored answer — fresh, or paid by an earlier part of this
 * run and kept (then loaded as the paid call it was), or already loaded by that part (nothing to
 * load, but its next page still follows).
 */
export async function freeAnswer(
  run: CallRun,
  call: PlannedCall,
  claim: { shared: StoredResponse } | { stored: StoredResponse },
): Promise<CallAnswer> {
  if ("shared" in claim) {
    run.counters.callsShared++;
    const { data, receivedAt } = claim.shared;
    return { data, answer: { call, data, receivedAt, ledger: { kind: "shared" } } };
  }
  const { data, receivedAt } = claim.stored;
  const keptId = run.kept.get(call.hash);
  if (keptId !== undefined) {
    // Its load was cut short: loaded now, its credits carried with the run.
    run.kept.delete(call.hash);
    return { data, answer: { call, data, receivedAt, ledger: { kind: "paid", callId: keptId } } };
  }
  // Whether the crashed attempt loaded it matters only for an answer found in the store: a
  // resumed run asks for these, not every call.
  if (run.resumed && (await isLoaded(run.warehouse, run.runId, run.pipeline.name, call.hash))) {
    // Counted by the earlier part, as paid or from store.
    run.counters.callsDone++;
    run.report();
    return { data, answer: undefined };
  }
  run.counters.callsCached++;
  return { data, answer: { call, data, receivedAt, ledger: { kind: "cached" } } };
}
