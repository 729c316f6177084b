import { namedVariable } from "../../core/env-config.js";
import type { Log } from "../../core/log.js";
import { ENV_REF } from "../../schema/notify.js";
import { targetHash } from "../../store/outbox.js";
import { type DeliveryTarget, mailTarget, notifyTarget, smtpFromEnv } from "./config.js";

/** Where all watches send, as the warehouse keeps it: webhooks by variable name, and addresses. */
export interface WatchNotify {
  /** `env:NAME` (a watch's literal URL is the `--notify` of the process that delivers it). */
  urlRefs: readonly string[];
  emails: readonly string[];
}

/** Variables already said to be unusable: said once per process, not at every pass. */
const warned = new Set<string>();

/**
 * A watch's `env:NAME` webhook as this process can deliver it: the variable's URL (a secret), with
 * the hash the alert was written for, that of `env:NAME`. None when the variable is not set here
 * (another process may have it) or does not hold an http(s) URL (said once).
 */
function envWebhook(ref: string, env: NodeJS.ProcessEnv | undefined, log?: Log): DeliveryTarget[] {
  const m = ENV_REF.exec(ref);
  const name = m ? (m[1] ?? m[2]) : undefined;
  const url = name === undefined ? undefined : namedVariable(name, env);
  if (!name || !url) return [];
  try {
    return [{ ...notifyTarget(url, `watch webhook (${name})`), hash: targetHash(`env:${name}`) }];
  } catch (err) {
    if (!warned.has(name)) {
      warned.add(name);
      log?.(`alerts to ${name} not delivered by this process: ${(err as Error).message}`, {
        event: "notify.error",
        level: "warn",
      });
    }
    return [];
  }
}

/**
 * The targets of all watches that this process can deliver: each `env:NAME` webhook whose variable
 * is set here, and each e-mail address when SKILLSYNC_SMTP_URL is set. What it cannot deliver
 * waits in the outbox for a process that can.
 */
export function watchTargets(list: WatchNotify, env?: NodeJS.ProcessEnv, log?: Log): DeliveryTarget[] {
  const hooks = list.urlRefs.flatMap((ref) => envWebhook(ref, env, log));
  const smtp = list.emails.length ? smtpFromEnv(env) : undefined;
  const mails = smtp ? list.emails.map((a) => mailTarget(a, smtp, `watch e-mail to ${a}`)) : [];
  return [...hooks, ...mails];
}
