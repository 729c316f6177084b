import { createServer, type Socket } from "node:net";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { sendMail, verifySmtp } from "../../../connectors/mail/smtp.js";
import { readConfig } from "../../../core/env-config.js";
import { afterTest } from "../../helpers/after-test.js";
import { startSmtpReceiver } from "../../helpers/smtp-receiver.js";

const message = (id: string) => ({
  from: "skillsync@test.example",
  to: "ops@example.com",
  subject: "skillsync: watch lapsed: 1 alert in patent_legal_status (load 12)",
  text: "skillsync: watch lapsed: 1 alert in patent_legal_status (load 12)\nUS1234567B2 legal_status Active → Inactive\n",
  messageId: `<${id}@skillsync>`,
  headers: { "X-Skillsync-Event-Id": id, "X-Skillsync-Event-Kind": "alert.digest" },
});

/** No part of the SMTP URL that must stay hidden. */
function expectNoSecret(text: string, smtp: { url: string; user: string; password: string }): void {
  expect(text).not.toContain(smtp.password);
  expect(text).not.toContain(smtp.user);
  expect(text).not.toContain(smtp.url);
  expect(text).not.toContain("smtp://");
}

describe("SMTP (connectors/mail)", () => {
  it("sends one mail over STARTTLS with AUTH: once, with its Message-ID, headers, subject and text", async () => {
    const smtp = await startSmtpReceiver();
    const r = await sendMail(smtp.url, message("ev_0001"), { timeoutMs: 10_000 });
    expect(r).toEqual({ ok: true });
    expect(smtp.messages).toHaveLength(1);
    const m = smtp.messages[0]!;
    // The server takes AUTH only under TLS: a mail received proves STARTTLS and the login.
    expect(m.secure).toBe(true);
    expect(m.user).toBe(smtp.user);
    expect(m.from).toBe("skillsync@test.example");
    expect(m.to).toEqual(["ops@example.com"]);
    expect(m.messageId).toBe("<ev_0001@skillsync>");
    expect(m.headers.get("x-skillsync-event-id")).toBe("ev_0001");
    expect(m.headers.get("x-skillsync-event-kind")).toBe("alert.digest");
    expect(m.subject).toBe("skillsync: watch lapsed: 1 alert in patent_legal_status (load 12)");
    expect(m.text.trim()).toBe(message("ev_0001").text.trim());
    expect(await verifySmtp(smtp.url, 10_000)).toEqual({ ok: true });
  }, 30_000);

  it("a wrong password: a clear error holding neither the password, the user nor the URL", async () => {
    const smtp = await startSmtpReceiver();
    const wrong = { ...smtp, password: "not-the-password-987654321" };
    const url = smtp.url.replace(encodeURIComponent(smtp.password), wrong.password);
    const r = await sendMail(url, message("ev_0002"), { timeoutMs: 10_000 });
    expect(r.ok).toBe(false);
    const error = r.ok ? "" : r.error;
    expect(error).toMatch(/^EAUTH: .*535/);
    expectNoSecret(error, { ...wrong, url });
    const v = await verifySmtp(url, 10_000);
    expect(v.ok).toBe(false);
    expectNoSecret(v.ok ? "" : v.error, { ...wrong, url });
    expect(smtp.messages).toEqual([]);
  }, 30_000);

  it("a server that is down: ECONNREFUSED, quickly; the same mail goes once it is back", async () => {
    const smtp = await startSmtpReceiver();
    await smtp.down();
    const t = performance.now();
    const r = await sendMail(smtp.url, message("ev_0003"), { timeoutMs: 5_000 });
    expect(r).toEqual({ ok: false, error: "ECONNREFUSED" });
    expect(performance.now() - t).toBeLessThan(5_000);
    await smtp.up();
    expect(await sendMail(smtp.url, message("ev_0003"), { timeoutMs: 10_000 })).toEqual({ ok: true });
    expect([...smtp.counts()]).toEqual([["<ev_0003@skillsync>", 1]]);
  }, 30_000);

  it("a server that never answers is cut at the time-out; a certificate not trusted is refused", async () => {
    // Accepts connections and never says a word (no greeting).
    const sockets = new Set<Socket>();
    const silent = createServer((c) => sockets.add(c));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    afterTest(() => {
      for (const c of sockets) c.destroy();
      return new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as { port: number };
    const t = performance.now();
    const r = await sendMail(`smtp://u:p@127.0.0.1:${port}`, message("ev_0004"), { timeoutMs: 1_000 });
    expect(r).toEqual({ ok: false, error: "timed out" });
    expect(performance.now() - t).toBeLessThan(5_000);
    // Without `tls.rejectUnauthorized=false` the test server's self-signed certificate is refused.
    const smtp = await startSmtpReceiver();
    const refused = await sendMail(smtp.strictUrl, message("ev_0005"), { timeoutMs: 10_000 });
    expect(refused.ok).toBe(false);
    expectNoSecret(refused.ok ? "" : refused.error, { ...smtp, url: smtp.strictUrl });
    expect(smtp.messages).toEqual([]);
  }, 30_000);

  it("SKILLSYNC_SMTP_URL is a secret of the configuration; SKILLSYNC_SMTP_FROM defaults to skillsync@host", () => {
    const url = "smtp://alerts:smtp-pass-0123456789@mail.example.com:587";
    const c = readConfig({ SKILLSYNC_SMTP_URL: url });
    expect(c.smtp.url).toBe(url);
    expect(c.smtp.from).toMatch(/^skillsync@.+/);
    const printed = [
      JSON.stringify(c),
      String(c),
      inspect(c, { depth: 5 }),
      JSON.stringify({ ...c.smtp }),
    ].join("\n");
    expect(printed).not.toContain("smtp-pass-0123456789");
    expect(Object.keys(c.smtp)).toEqual(["from"]);
    expect(readConfig({ SKILLSYNC_SMTP_FROM: "alerts@example.com" }).smtp).toMatchObject({
      from: "alerts@example.com",
      url: undefined,
    });
  });
});
