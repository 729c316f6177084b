import type { Warehouse } from "../../connectors/warehouse/open.js";
import { readConfig } from "../../core/env-config.js";
import { type Log, silentLog } from "../../core/log.js";
import type { NotifyTarget } from "./config.js";
import { type Backoff, type DeliveryOptions, deliverDue } from "./deliver.js";

/** How often a long-running process (serve, schedule, worker) looks for due events. */
const DELIVERY_EVERY_MS = 2000;
/** What `run` waits for its notifications at most: a hanging receiver never holds a run longer. */
const RUN_DELIVERY_MS = 1000;

/**
 * `SKILLSYNC_NOTIFY_BACKOFF=base,cap` (milliseconds): a shorter backoff for tests that take a
 * receiver down and up again across processes. Unset: the defaults (1 s doubling to 30 s).
 */
function backoffFromEnv(env?: NodeJS.ProcessEnv): Backoff | undefined {
  return readConfig(env).notify.backoff;
}

/**
 * How long `stop` lets POSTs under way finish. A POST cut after the receiver took it leaves the
 * receiver's answer unknown, so the event is sent again by the next deliverer: letting it finish
 * keeps a stopping process (SIGTERM to `schedule`, `serve`, `worker`) from sending an event twice.
 */
const DRAIN_MS = 5000;

export interface DeliveryLoop {
  /**
   * Stops looking and takes no new event; a POST under way may finish for `DRAIN_MS`, then is cut
   * (its event stays for the next deliverer).
   */
  stop(): Promise<void>;
}

/**
 * Delivers due events every `everyMs` until stopped: the loop of `serve`, `schedule` and `worker`.
 * Nothing at all without targets. A failing pass (the warehouse away) is logged and tried again.
 */
export function startDelivery(
  w: Warehouse,
  targets: readonly NotifyTarget[],
  o: { everyMs?: number; drainMs?: number; log?: Log | undefined } & Omit<
    DeliveryOptions,
    "signal" | "halt"
  > = {},
): DeliveryLoop {
  if (!targets.length) return { stop: async () => {} };
  const log = o.log ?? silentLog;
  const halt = new AbortController();
  const cut = new AbortController();
  const options = { backoff: backoffFromEnv(), ...o, log, halt: halt.signal, signal: cut.signal };
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = () => {
    pass = deliverDue(w, targets, options)
      .then(() => undefined)
      .catch((err: unknown) =>
        log(`notifications: ${err instanceof Error ? err.message : String(err)}`, {
          event: "notify.error",
          level: "warn",
        }),
      )
      .finally(() => {
        if (!halt.signal.aborted) timer = setTimeout(tick, o.everyMs ?? DELIVERY_EVERY_MS).unref();
      });
  };
  tick();
  return {
    async stop() {
      halt.abort();
      clearTimeout(timer);
      let drained: NodeJS.Timeout | undefined;
      await Promise.race([
        pass,
        new Promise<void>((resolve) => (drained = setTimeout(resolve, o.drainMs ?? DRAIN_MS))),
      ]);
      clearTimeout(drained);
      cut.abort();
      await pass;
    },
  };
}

/**
 * `run`'s delivery at its end: what is due for its targets (its own events, and earlier ones still
 * waiting), for at most `ms` in all. What is not delivered by then stays in the outbox.
 */
export async function deliverWithin(
  w: Warehouse,
  targets: readonly NotifyTarget[],
  ms = RUN_DELIVERY_MS,
  o: Omit<DeliveryOptions, "signal" | "halt"> = {},
): Promise<void> {
  if (!targets.length) return;
  const stop = new AbortController();
  const work = deliverDue(w, targets, { backoff: backoffFromEnv(), ...o, signal: stop.signal }).catch(
    () => {},
  );
  // POSTs are cut at 80 % of the bound, leaving the rest to record them as not delivered (due
  // again after their backoff); the bound holds even when the warehouse is slow to answer.
  const cut = setTimeout(() => stop.abort(), Math.floor(ms * 0.8));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(cut);
  clearTimeout(timer);
  stop.abort();
}
