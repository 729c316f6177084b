import { SMTPServer } from "smtp-server";
import { afterTest } from "./after-test.js";

/** One mail the server accepted, its headers and text decoded. */
export interface ReceivedMail {
  /** The envelope: MAIL FROM and RCPT TO. */
  from: string;
  to: string[];
  /** Header names in lower case, values unfolded and decoded (`=?UTF-8?Q?…?=`). */
  headers: Map<string, string>;
  subject: string;
  messageId: string;
  /** The body, its transfer encoding (quoted-printable, base64) undone, line ends as `\n`. */
  text: string;
  /** Whether the conversation was under TLS (STARTTLS) when the mail was sent. */
  secure: boolean;
  /** Who logged in. */
  user: string | undefined;
}

/** `=?UTF-8?Q?…?=` and `=?UTF-8?B?…?=` words of a header (RFC 2047). */
const decodeWords = (value: string): string =>
  value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, enc: string, data: string) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : Buffer.from(
            data
              .replace(/_/g, " ")
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
            "latin1",
          ).toString("utf8"),
    );

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = encoding?.toLowerCase();
  if (enc === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (enc !== "quoted-printable") return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** A raw RFC 5322 message as headers and text (single part: what skillsync sends). */
function parseMail(raw: string): Pick<ReceivedMail, "headers" | "subject" | "messageId" | "text"> {
  const cut = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  const text = decodeBody(raw.slice(cut + 4), headers.get("content-transfer-encoding")).replace(
    /\r\n/g,
    "\n",
  );
  return { headers, subject: headers.get("subject") ?? "", messageId: headers.get("message-id") ?? "", text };
}

/**
 * A real SMTP server on loopback (smtp-server): STARTTLS with its built-in self-signed certificate
 * for localhost, AUTH PLAIN/LOGIN required and only under TLS (so a mail received proves both),
 * every accepted mail kept in `messages` in order. It can go down (connections refused) and come
 * back on the same port; it is closed after the test. `url` trusts its self-signed certificate
 * (`tls.rejectUnauthorized=false`); `strictUrl` does not.
 */
export async function startSmtpReceiver(o: { user?: string; password?: string } = {}) {
  const user = o.user ?? "alerts-user";
  const password = o.password ?? "smtp-pass-0123456789-secret";
  const messages: ReceivedMail[] = [];
  const state = { refuseData: false };
  // A closed smtp-server answers every later connection "421 shutting down": `up` makes a new one.
  const make = () =>
    new SMTPServer({
      authMethods: ["PLAIN", "LOGIN"],
      allowInsecureAuth: false,
      closeTimeout: 100,
      logger: false,
      onAuth(auth, _session, done) {
        if (auth.username === user && auth.password === password) return done(null, { user });
        done(new Error("Authentication credentials invalid"));
      },
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          if (state.refuseData)
            return done(Object.assign(new Error("Try again later"), { responseCode: 451 }));
          const envelope = session.envelope;
          messages.push({
            from: envelope.mailFrom ? envelope.mailFrom.address : "",
            to: envelope.rcptTo.map((r) => r.address),
            ...parseMail(Buffer.concat(chunks).toString("latin1")),
            secure: session.secure,
            user: typeof session.user === "string" ? session.user : undefined,
          });
          done();
        });
      },
    });
  let server = make();
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server.on("error", () => {});
      server.server.once("error", reject);
      server.listen(p, "127.0.0.1", () => {
        server.server.off("error", reject);
        resolve((server.server.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  let up = true;
  const close = () =>
    new Promise<void>((resolve) => {
      if (!up) return resolve();
      up = false;
      server.close(() => resolve());
    });
  afterTest(close);
  const base = `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@localhost:${port}`;
  return {
    port,
    user,
    password,
    url: `${base}/?tls.rejectUnauthorized=false`,
    strictUrl: base,
    messages,
    state,
    /** Message-IDs received, and how often each. */
    counts: () =>
      messages.reduce((m, r) => m.set(r.messageId, (m.get(r.messageId) ?? 0) + 1), new Map<string, number>()),
    down: close,
    up: async () => {
      server = make();
      await listen(port);
      up = true;
    },
  };
}
