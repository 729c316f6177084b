import type { Warehouse } from "../../connectors/warehouse/open.js";
import { type StoredResponse, storedResponses } from "../../store/responses.js";
import { abandonCalls, flightState, type InFlight } from "../../store/single-flight.js";

/** How another run's call of the same request ended, for the run that waited for it. */
export type FlightEnd =
  /** Answered and stored: the waiting run uses the answer for 0 credits. */
  | { kind: "answered"; stored: StoredResponse }
  /** Ended without an answer (refused, failed, interrupted) or its run died: reserve it anew. */
  | { kind: "reserve" }
  /** Sent, then lost after it may have been billed: sending it again could pay twice. */
  | { kind: "ambiguous" }
  /** This run stopped (ceiling, interrupt) while waiting. */
  | { kind: "stopped" }
  /** Still in flight, its run alive, after `timeoutMs`. */
  | { kind: "timeout" };

/** Longer than a call can take (the client's time-outs and 429 waits), so a live call is never overtaken. */
const FLIGHT_TIMEOUT_MS = 10 * 60_000;
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 500;

/**
 * Waits for a call another live run has in flight (the same request hash) to end: polls its ledger
 * row and its run's liveness with backoff, one indexed read each time. A call whose run died is
 * marked interrupted here (as its own resume would mark it) and handed back to be reserved.
 *
 * @example const end = await awaitFlight(w, { hash, callId, runId }, { stopped: () => state.stop });
 */
export async function awaitFlight(
  w: Warehouse,
  flight: InFlight,
  o: { stopped: () => boolean; timeoutMs?: number },
): Promise<FlightEnd> {
  const deadline = Date.now() + (o.timeoutMs ?? FLIGHT_TIMEOUT_MS);
  let delay = FIRST_POLL_MS;
  for (;;) {
    const state = await flightState(w.db, flight.callId);
    // Kept on arrival (`answered`) is as good as loaded for a run waiting for the answer.
    if (state?.outcome === "answered" || state?.outcome === "succeeded") {
      const stored = (await storedResponses(w.db, [flight.hash])).get(flight.hash);
      return stored ? { kind: "answered", stored } : { kind: "reserve" };
    }
    if (state?.outcome === "ambiguous") return { kind: "ambiguous" };
    if (state?.outcome !== "reserved") return { kind: "reserve" };
    if (!state.ownerAlive) {
      await abandonCalls(w.db, [flight.callId]);
      return { kind: "reserve" };
    }
    if (o.stopped()) return { kind: "stopped" };
    if (Date.now() >= deadline) return { kind: "timeout" };
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(MAX_POLL_MS, delay * 1.5);
  }
}
