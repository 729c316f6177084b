import { redact, registerSecret } from "../../core/redact.js";

/** One e-mail: plain text, with a stable Message-ID so a mail read twice is seen as one. */
export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** `<…@…>`, the same on every try of the same event. */
  messageId: string;
  headers?: Record<string, string> | undefined;
}

/** Never throws: `error` is short and holds neither the SMTP URL, its user nor its password. */
export type MailResult = { ok: true } | { ok: false; error: string };

/**
 * The parts of an SMTP URL that must never be shown, registered as secrets (so every log line and
 * table is redacted of them) and returned for this module's own scrubbing: a user name or password
 * shorter than `registerSecret` takes would otherwise slip through.
 */
function secretsOf(url: string): string[] {
  registerSecret(url);
  const out = [url];
  try {
    const u = new URL(url);
    for (const v of [u.password, u.username]) {
      if (!v) continue;
      const plain = decodeURIComponent(v);
      registerSecret(v);
      registerSecret(plain);
      out.push(v, plain);
    }
  } catch {
    // Not a URL (or a malformed escape): nodemailer says so below; the URL as a whole is hidden.
  }
  // Fewer than 4 characters would mask ordinary words of the server's answer.
  return out.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

/** What went wrong, as the outbox keeps it: `ECONNREFUSED`, `timed out`, `EAUTH: Invalid login: 535 …`. */
function reason(err: unknown, hidden: readonly string[], signal: AbortSignal): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === "string" ? e.message : String(err);
  const code = typeof e?.code === "string" ? e.code : "";
  let out: string;
  if (signal.aborted || code === "ETIMEDOUT" || /timeout|timed out/i.test(message)) out = "timed out";
  else if (/ECONNREFUSED/.test(message)) out = "ECONNREFUSED";
  else out = code ? `${code}: ${message}` : message;
  for (const s of hidden) out = out.split(s).join("[redacted]");
  return redact(out).replace(/\s+/g, " ").slice(0, 300);
}

/**
 * The transport of one send: `smtp://user:pass@host:587` (STARTTLS when the server offers it),
 * `smtps://…:465` (TLS from the start). Every phase is bounded: connecting, the greeting and any
 * silence of the socket each end at `timeoutMs`.
 */
async function transport(url: string, timeoutMs: number) {
  // Loaded on the first mail: every command's start would otherwise pay for the mailer.
  const { createTransport } = await import("nodemailer");
  return createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    socketCloseTimeout: 0,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

/**
 * Sends one mail over SMTP and closes the connection (alerts are rare: nothing is kept open).
 * `signal` cuts the conversation; the whole send is bounded by `timeoutMs` too.
 */
export async function sendMail(
  url: string,
  message: MailMessage,
  o: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<MailResult> {
  const hidden = secretsOf(url);
  const signal = o.signal
    ? AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)])
    : AbortSignal.timeout(o.timeoutMs);
  let t: Awaited<ReturnType<typeof transport>> | undefined;
  try {
    t = await transport(url, o.timeoutMs);
    await t.sendMail({ ...message, signal });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: reason(err, hidden, signal) };
  } finally {
    t?.close();
  }
}

/** Connects, says hello, starts TLS and logs in where asked, and leaves: whether mail could go. */
export async function verifySmtp(url: string, timeoutMs: number): Promise<MailResult> {
  const hidden = secretsOf(url);
  const signal = AbortSignal.timeout(timeoutMs + 1000);
  let t: Awaited<ReturnType<typeof transport>> | undefined;
  try {
    t = await transport(url, timeoutMs);
    await Promise.race([
      t.verify(),
      new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(new Error("timed out")), { once: true }),
      ),
    ]);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: reason(err, hidden, signal) };
  } finally {
    t?.close();
  }
}
