import { verifySmtp } from "../../connectors/mail/smtp.js";
import { namedVariable, readConfig } from "../../core/env-config.js";
import type { WatchSpec } from "../../schema/watch.js";
import { targetHash } from "../../store/outbox.js";

/** How long `watch add --email` waits for the SMTP server before warning. */
const SMTP_CHECK_MS = 5000;

/**
 * What `watch add` says after making a watch, where its alerts could fail to reach anyone: never
 * an error (the watch is made; the outbox keeps its alerts and retries), always said.
 */
export async function watchWarnings(spec: WatchSpec, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const out: string[] = [];
  const { url, email } = spec.notify;
  if (url === null && !email.length)
    out.push(
      "no --notify or --email: alerts are recorded only (skillsync alerts, GET /alerts, the add-on's Alerts tab)",
    );
  if (url?.startsWith("env:") && !namedVariable(url.slice(4), env))
    out.push(
      `${url.slice(4)} is not set here: the processes that deliver (run, serve, schedule, worker) need it set to the webhook's URL`,
    );
  if (url?.startsWith("hash:")) {
    const own = readConfig(env).notify.url;
    if (!own || `hash:${targetHash(own)}` !== url)
      out.push(
        "the webhook URL is kept only as its hash: processes deliver to it when it is their --notify or SKILLSYNC_NOTIFY_URL; to name a variable instead, give --notify env:NAME",
      );
  }
  if (email.length) out.push(...(await smtpWarning(env)));
  return out;
}

async function smtpWarning(env?: NodeJS.ProcessEnv): Promise<string[]> {
  const smtp = readConfig(env).smtp.url;
  if (!smtp)
    return ["SKILLSYNC_SMTP_URL is not set: e-mails wait in the outbox until a delivering process has it"];
  const r = await verifySmtp(smtp, SMTP_CHECK_MS);
  return r.ok
    ? []
    : [
        `the SMTP server (SKILLSYNC_SMTP_URL) cannot be reached now (${r.error}): the e-mails wait in the outbox and are retried`,
      ];
}
