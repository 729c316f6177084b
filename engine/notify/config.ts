import { namedVariable, readConfig } from "../../core/env-config.js";
import { ConfigurationError } from "../../core/errors.js";
import { registerSecret } from "../../core/redact.js";
import { ENV_REF, type EventGroup, type NotifySpec } from "../../schema/notify.js";
import { mailHash, type OutboxTarget, targetHash } from "../../store/outbox.js";

/** A webhook to tell: its URL (a secret: never stored, logged or sent), its hash, which events. */
export interface NotifyTarget extends OutboxTarget {
  url: string;
  /** Where it was set, for messages: `--notify`, `SKILLSYNC_NOTIFY_URL`, `pipelines/x.yaml schedule.notify`. */
  from: string;
}

const NOTIFY_ENV = "SKILLSYNC_NOTIFY_URL";

/**
 * A checked webhook URL: http or https only. The URL is registered as a secret (redacted wherever
 * it could appear) and never repeated in an error.
 */
export function notifyTarget(url: string, from: string, on?: readonly EventGroup[]): NotifyTarget {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    const scheme = parsed ? ` (its scheme is ${parsed.protocol})` : "";
    throw new ConfigurationError(
      `${from}: the notification URL is not an http(s) URL${scheme}; give the webhook's address, e.g. https://hooks.slack.com/services/…`,
    );
  }
  registerSecret(url);
  return { url, hash: targetHash(url), from, ...(on ? { on } : {}) };
}

/** `--notify URL`, else SKILLSYNC_NOTIFY_URL; none: no target (no event is written at all). */
export function notifyFromFlag(flag: string | undefined, env?: NodeJS.ProcessEnv): NotifyTarget[] {
  if (flag !== undefined) return [notifyTarget(flag, "--notify")];
  const fromEnv = readConfig(env).notify.url;
  return fromEnv ? [notifyTarget(fromEnv, NOTIFY_ENV)] : [];
}

/**
 * A pipeline file's `schedule.notify`: its URL read from the variable it names (`env:NAME`,
 * `${NAME}`) or as written. A variable that is not set is a configuration error naming it.
 */
export function notifyFromFile(spec: NotifySpec, file: string, env?: NodeJS.ProcessEnv): NotifyTarget {
  const from = `${file} schedule.notify.url`;
  const ref = ENV_REF.exec(spec.url);
  const name = ref ? (ref[1] ?? ref[2]) : undefined;
  const url = name === undefined ? spec.url : namedVariable(name, env);
  if (!url) {
    throw new ConfigurationError(
      `${from}: the environment variable ${name} is not set; set it to the webhook's URL before starting the scheduler`,
    );
  }
  return notifyTarget(url, name ? `${from} (${name})` : from, spec.on);
}

/** How this process sends e-mail: SKILLSYNC_SMTP_URL (a secret) and the sender, SKILLSYNC_SMTP_FROM. */
export interface SmtpSettings {
  url: string;
  sender: string;
}

/** An e-mail address to tell (a watch's `--email`): its outbox hash is that of `mailto:<address>`. */
export interface MailTarget extends OutboxTarget {
  address: string;
  smtp: SmtpSettings;
  /** Where it was set, for messages. */
  from: string;
}

/** Where an event may go: a webhook or an e-mail address. */
export type DeliveryTarget = NotifyTarget | MailTarget;

export const isMail = (t: DeliveryTarget): t is MailTarget => "address" in t;

/** SKILLSYNC_SMTP_URL and SKILLSYNC_SMTP_FROM, or undefined when no SMTP server is set. */
export function smtpFromEnv(env?: NodeJS.ProcessEnv): SmtpSettings | undefined {
  const smtp = readConfig(env).smtp;
  if (!smtp.url) return undefined;
  registerSecret(smtp.url);
  return { url: smtp.url, sender: smtp.from };
}

export function mailTarget(address: string, smtp: SmtpSettings, from: string): MailTarget {
  return { address, smtp, hash: mailHash(address), from };
}

/** Targets without repeats (the same URL from a flag and a file is one webhook). */
export function uniqueTargets<T extends DeliveryTarget>(targets: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const t of targets) {
    const had = seen.get(t.hash);
    if (!had) seen.set(t.hash, t);
    // Either wants every event (no `on`): so does the webhook.
    else seen.set(t.hash, { ...had, on: had.on && t.on ? [...new Set([...had.on, ...t.on])] : undefined });
  }
  return [...seen.values()];
}
