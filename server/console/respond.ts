import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Html } from "./html.js";

/** What a console route answers: a page, a redirect, an asset, or a file to stream. */
export type ConsoleReply =
  | { status: number; page: Html; cookie?: string | undefined }
  | { status: 303; location: string; cookie?: string | undefined }
  | { status: 200; asset: Buffer; type: string; etag: string }
  | { status: 200; stream: (res: ServerResponse) => Promise<void>; type: string; filename: string }
  | { status: number; text: string };

/**
 * No inline script or style, nothing from another origin, no framing, forms post only here. The
 * pages' data for charts is a `type="application/json"` block, which is never executed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  // The one-time link's token is in a URL: it never leaves in a Referer.
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const SESSION_COOKIE = "skillsync_console";

/** Whether the request came over TLS (here, or at a proxy that says so): the cookie is then Secure. */
export function overTls(req: IncomingMessage): boolean {
  return Boolean((req.socket as TLSSocket).encrypted) || req.headers["x-forwarded-proto"] === "https";
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure under TLS; an empty id ends it. */
export function sessionCookie(id: string, secure: boolean): string {
  const life = id ? "" : "; Max-Age=0";
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}${life}`;
}

/** The session id the request's cookie carries. */
export function cookieSession(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || undefined;
  }
  return undefined;
}

/** Sends a console reply with the security headers; `ms`: the server's time, as Server-Timing. */
export async function sendConsole(res: ServerResponse, r: ConsoleReply, ms: () => number): Promise<void> {
  const head = (more: Record<string, string | number>) => {
    const cookie = "cookie" in r && r.cookie ? { "set-cookie": r.cookie } : {};
    res.writeHead(r.status, { ...SECURITY_HEADERS, ...cookie, "server-timing": `app;dur=${ms()}`, ...more });
  };
  if ("page" in r) {
    const body = `<!doctype html>\n${r.page.text}`;
    head({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  } else if ("location" in r) {
    head({ location: r.location, "cache-control": "no-store", "content-length": 0 });
    res.end();
  } else if ("asset" in r) {
    head({
      "content-type": r.type,
      "cache-control": "no-cache",
      etag: r.etag,
      "content-length": r.asset.length,
    });
    res.end(r.asset);
  } else if ("stream" in r) {
    head({
      "content-type": r.type,
      "cache-control": "no-store",
      "content-disposition": `attachment; filename="${r.filename.replace(/[^A-Za-z0-9_.-]/g, "_")}"`,
    });
    await r.stream(res);
  } else {
    head({
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(r.text),
    });
    res.end(r.text);
  }
}
