import { waiters } from "../../core/waiters.js";
import type { PlannedCall } from "../extract/planned-calls.js";

/**
 * The calls a pipeline has still to make: its planned first calls, formed one at a time as they
 * are taken (a run of 100,000 calls never holds 100,000 requests), and the calls found on the way
 * (next pages, the smaller batch left of a batch whose items were taken), taken first.
 */
export function callQueue(planned: Iterable<PlannedCall>) {
  const firsts = planned[Symbol.iterator]();
  const found: PlannedCall[] = [];
  let active = 0;
  const changed = waiters();
  // A finished generator keeps answering done.
  const nextPlanned = (): PlannedCall | undefined => {
    const r = firsts.next();
    return r.done ? undefined : r.value;
  };
  return {
    /** A call found on the way: taken before the next planned one. */
    addFound(call: PlannedCall): void {
      found.push(call);
      changed.wakeAll();
    },
    /** The next call to make, in flight until `callDone`; undefined when there is none to take now. */
    takeCall(): PlannedCall | undefined {
      const call = found.shift() ?? nextPlanned();
      if (call) active++;
      return call;
    },
    /** A taken call is done: whatever it found is queued. */
    callDone(): void {
      active--;
      changed.wakeAll();
    },
    /** No call is in flight that could still bring one. */
    get noneInFlight(): boolean {
      return active === 0;
    },
    /** Resolves at the next change: a call queued or one done. */
    waitForCalls: changed.wait,
  };
}
