import type { IncomingMessage, ServerResponse } from "node:http";
import { ValidationError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { BodyTimedOut, BodyTooLarge, readBody } from "../http.js";
import { consolePage } from "./console-routes.js";
import type { ConsoleContext } from "./context.js";
import { signInPage } from "./pages/sign-in.js";
import { type ConsoleReply, cookieSession, overTls, sendConsole, sessionCookie } from "./respond.js";

/** A form is a few fields: anything larger is not one of ours. */
const FORM_LIMIT = 16 * 1024;

/** Whether a path is the console's: `/` and everything under `/console/`. */
export const isConsolePath = (path: string): boolean => path === "/" || path.startsWith("/console/");

/**
 * Answers one console request: assets and the sign-in page to anyone, everything else to a
 * session only, and a POST only with the session's CSRF token from a page of this origin.
 */
export async function handleConsole(
  c: ConsoleContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<{ status: number; note: string }> {
  const started = performance.now();
  let reply: ConsoleReply;
  let note = "";
  try {
    reply = await answer(c, req, url);
  } catch (err) {
    reply = failed(err);
    // Ours, not the request's: the message goes to the log, the browser is told where to look.
    if (reply.status >= 500)
      note = ` error=${redact(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
  }
  await sendConsole(res, reply, () => Math.round(performance.now() - started));
  return { status: reply.status, note };
}

/** A thrown error as the console answers it: the request's fault (4xx, its message) or ours (500). */
function failed(err: unknown): ConsoleReply {
  const message = redact(err instanceof Error ? err.message : String(err)).slice(0, 500);
  if (err instanceof BodyTooLarge) return { status: 413, text: message };
  if (err instanceof BodyTimedOut) return { status: 408, text: message };
  if (err instanceof ValidationError) return { status: 400, text: message };
  return { status: 500, text: "the console failed to answer this page; the server's log says why" };
}

async function answer(c: ConsoleContext, req: IncomingMessage, url: URL): Promise<ConsoleReply> {
  const method = req.method ?? "GET";
  let parts: string[];
  try {
    parts = url.pathname.split("/").filter(Boolean).slice(1).map(decodeURIComponent);
  } catch {
    return { status: 400, text: "the path is not valid percent-encoding" };
  }
  if (method !== "GET" && method !== "POST") return { status: 405, text: "use GET or POST" };
  if (parts[0] === "assets" && method === "GET") return c.assets.reply(parts[1] ?? "");
  if (method === "POST" && !sameOrigin(req))
    return { status: 403, text: "a form of another site cannot write here" };
  const form = method === "POST" ? await readForm(req) : new URLSearchParams();
  if (parts[0] === "signin") return signIn(c, req, method, url, form);
  const session = c.sessions.get(cookieSession(req));
  if (!session) {
    // A page gets the sign-in form; a download or a write, a plain refusal.
    return method === "GET" && !/\.(csv|parquet)$/.test(url.pathname)
      ? { status: 401, page: signInPage() }
      : {
          status: 401,
          text: "sign in first (open the console's one-time link, or sign in with the server secret)",
        };
  }
  if (method === "POST" && !c.sessions.csrfMatches(session, form.get("csrf") ?? undefined)) {
    return {
      status: 403,
      text: "this form's CSRF token is missing or out of date: reload the page and try again",
    };
  }
  if (parts[0] === "signout" && method === "POST") {
    c.sessions.end(cookieSession(req));
    return { status: 303, location: "/console/signin", cookie: sessionCookie("", overTls(req)) };
  }
  return consolePage({ c, session, method, parts, url, form });
}

/** The one-time link (GET with `token`) or the server secret (POST) opens a session. */
function signIn(
  c: ConsoleContext,
  req: IncomingMessage,
  method: string,
  url: URL,
  form: URLSearchParams,
): ConsoleReply {
  const token = url.searchParams.get("token");
  if (method === "GET" && token === null) return { status: 200, page: signInPage() };
  const id =
    method === "GET"
      ? c.sessions.redeemLink(token ?? "")
      : c.sessions.signInWithSecret(form.get("secret") ?? "");
  if (id === "busy") return { status: 429, page: signInPage("Too many sign-in attempts: wait a minute.") };
  if (id === undefined) {
    const why =
      method === "GET"
        ? "This sign-in link was used already or has expired. Restart the console for a new one, or sign in with the server secret."
        : "That is not the server secret.";
    return { status: 401, page: signInPage(why) };
  }
  // To `/` at once: the token leaves the address bar and the browser's history.
  return { status: 303, location: "/", cookie: sessionCookie(id, overTls(req)) };
}

/**
 * A POST must come from a page of this origin (browsers send Origin with every POST). Together
 * with the SameSite=Strict cookie and the form's CSRF token, another site cannot write here.
 */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined)
    return req.headers["sec-fetch-site"] === undefined || req.headers["sec-fetch-site"] === "same-origin";
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const body = await readBody(req, { limit: FORM_LIMIT, timeoutMs: 10_000 });
  return new URLSearchParams(body);
}
