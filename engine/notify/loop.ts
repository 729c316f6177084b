import type { Warehouse } from "../../connectors/warehouse/open.js";
import { readConfig } from "../../core/env-config.js";
import { type Log, silentLog } from "../../core/log.js";
import { listWatchNotify } from "../../store/watches.js";
import { type DeliveryTarget, uniqueTargets } from "./config.js";
import { type Backoff, type DeliveryOptions, deliverDue } from "./deliver.js";
import { type WatchNotify, watchTargets } from "./watch-targets.js";

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

/** What a loop or a run's delivery is given beyond the delivery options. */
interface PassOptions {
  /** The warehouse's watches and where they send (default: the watches' table); tests give a list. */
  watches?: ((w: Warehouse) => Promise<WatchNotify>) | undefined;
  /** Where the variables of watches' webhooks and SKILLSYNC_SMTP_URL are read (default: the process's). */
  env?: NodeJS.ProcessEnv | undefined;
}

/**
 * The targets of one pass: the process's own (`--notify`, schedule files) and, read again at each
 * pass so a watch added meanwhile is served, those of all watches this process can deliver. The
 * watches unreadable (a warehouse not yet migrated to them): the process's own only, said once.
 */
async function passTargets(
  w: Warehouse,
  configured: readonly DeliveryTarget[],
  o: PassOptions & { log?: Log | undefined },
  said: { unreadable?: boolean },
): Promise<DeliveryTarget[]> {
  let list: WatchNotify;
  try {
    list = await (o.watches ?? listWatchNotify)(w);
  } catch (err) {
    if (!said.unreadable)
      (o.log ?? silentLog)(`alerts: the watches could not be read: ${(err as Error).message}`, {
        event: "notify.error",
        level: "warn",
      });
    said.unreadable = true;
    return [...configured];
  }
  return uniqueTargets([...configured, ...watchTargets(list, o.env, o.log)]);
}

export interface DeliveryLoop {
  /**
   * Stops looking and takes no new event; a POST under way may finish for `DRAIN_MS`, then is cut
   * (its event stays for the next deliverer).
   */
  stop(): Promise<void>;
}

/**
 * Delivers due events every `everyMs` until stopped: the loop of `serve`, `schedule` and `worker`,
 * to their targets and to the watches' (a process without either reads the watches, finds nothing
 * it can deliver and sends nothing). A failing pass (the warehouse away) is logged and tried again.
 */
export function startDelivery(
  w: Warehouse,
  targets: readonly DeliveryTarget[],
  o: { everyMs?: number; drainMs?: number; log?: Log | undefined } & PassOptions &
    Omit<DeliveryOptions, "signal" | "halt"> = {},
): DeliveryLoop {
  const log = o.log ?? silentLog;
  const halt = new AbortController();
  const cut = new AbortController();
  const options = { backoff: backoffFromEnv(), ...o, log, halt: halt.signal, signal: cut.signal };
  const said = {};
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> = Promise.resolve();
  const tick = () => {
    pass = passTargets(w, targets, options, said)
      .then((all) => (all.length ? deliverDue(w, all, options) : undefined))
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
 * `run`'s delivery at its end: what is due for its targets and the watches' (its own events, and
 * earlier ones still waiting), for at most `ms` in all. What is not delivered then stays in the outbox.
 */
export async function deliverWithin(
  w: Warehouse,
  targets: readonly DeliveryTarget[],
  ms = RUN_DELIVERY_MS,
  o: PassOptions & Omit<DeliveryOptions, "signal" | "halt"> = {},
): Promise<void> {
  const stop = new AbortController();
  const options = { backoff: backoffFromEnv(), ...o, signal: stop.signal };
  const work = passTargets(w, targets, options, {})
    .then((all) => (all.length ? deliverDue(w, all, options) : undefined))
    .catch(() => {});
  // POSTs are cut at 80 % of the bound, leaving the rest to record them as not delivered (due
  // again after their backoff); the bound holds even when the warehouse is slow to answer.
  const cut = setTimeout(() => stop.abort(), Math.floor(ms * 0.8));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(cut);
  clearTimeout(timer);
  stop.abort();
}
