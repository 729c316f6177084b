import { CreditCeilingError } from "../../core/errors.js";
import { keepPaid } from "../extract/keep-answers.js";
import { refused, sendPaid } from "../extract/paid-call.js";
import type { PlannedCall } from "../extract/planned-calls.js";
import { type CallAnswer, type CallRun, loadAnswer } from "./call-run.js";
import { freeAnswer } from "./free-answer.js";
import { takeItems } from "./item-reuse.js";
import { loadable } from "./quality.js";
import { claimCall } from "./reserve-or-share.js";

/**
 * One call's life, step by step. Claim: reserved (credits and ledger row committed before it is
 * sent), or an identical call in flight in another run shared, or a fresh stored answer taken — and
 * for a batch split per item, the items others have are loaded apart and the rest go as a smaller
 * batch. Send and keep, when paid: the answer stored the moment it arrives. Then load: its records
 * checked, its next page planned, the answer handed to the loading queue.
 */
async function makeCall(run: CallRun, call: PlannedCall): Promise<void> {
  const claim = await claimCall(run, call);
  if ("skipped" in claim) return;
  if ("itemsTaken" in claim) {
    const taken = await takeItems(run, call, claim.itemsTaken);
    for (const a of taken?.answers ?? []) await run.answers.push(a);
    if (taken?.retry) run.calls.addFound(taken.retry);
    return;
  }
  let got: CallAnswer;
  if ("callId" in claim || "error" in claim) {
    const sent = "error" in claim ? refused(run, claim.error) : await sendPaid(run, call, claim.callId);
    if (!sent.ok) {
      if (!(sent.error instanceof CreditCeilingError)) run.pipelineStop.failed++;
      return;
    }
    got = await keepPaid(run, call, sent);
  } else {
    got = await freeAnswer(run, call, claim);
  }
  if (got.answer && !loadable(run, got.answer)) return;
  await loadAnswer(run, call, got);
}

/**
 * One of a pipeline's workers: takes calls one at a time until none is left, nor in flight that
 * could bring a next page. A fixed set of them makes a pipeline's calls.
 */
export async function callWorker(run: CallRun): Promise<void> {
  for (;;) {
    // Stopped (ceiling, refusal, interrupt, a worker's failure): the calls left are not even formed.
    if (run.state.stop || run.pipelineStop.stop) return;
    const call = run.calls.takeCall();
    if (!call) {
      // Nothing to take now, but a call in flight may still bring a next page.
      if (run.calls.noneInFlight) return;
      await run.calls.waitForCalls();
      continue;
    }
    try {
      await makeCall(run, call);
    } finally {
      run.calls.callDone();
    }
  }
}
