import type { IncomingMessage, ServerResponse } from "node:http";
import { ValidationError } from "../core/errors.js";
import type { Log } from "../core/log.js";
import { redact } from "../core/redact.js";
import { type AuthFailure, type RequestAuthenticator, SignatureNotRecorded } from "./auth.js";
import { handleConsole, isConsolePath } from "./console/console-request.js";
import type { ConsoleContext } from "./console/context.js";
import {
  BodyTimedOut,
  BodyTooLarge,
  declaresTooLarge,
  errorReply,
  type Reply,
  readBody,
  send,
  sendRefusal,
} from "./http.js";
import { route } from "./router.js";
import type { RouteContext } from "./routes.js";

/** What every request is handled with: the routes' context, the signature check, the log, the body's limits. */
export interface RequestHandling {
  ctx: RouteContext;
  /** The browser console at `/` and `/console/…`: sessions instead of signatures. */
  console: ConsoleContext;
  auth: RequestAuthenticator;
  log: Log;
  /** Largest request body in bytes. */
  bodyLimit: number;
  /** How long a request's body may take to arrive once its headers have, ms. */
  bodyTimeoutMs: number;
}

/** A request's reply, and how it is sent. */
interface Answer {
  reply: Reply;
  /** The connection cannot carry another request. */
  close: boolean;
  /** A body refused as too large: the reply goes out while the rest of it drains (sendRefusal). */
  refused: boolean;
  /** Added to the request's log line (an error's redacted message). */
  note: string;
}

/** 401: `code` UNAUTHORIZED as always, `reason` which check refused the request. */
function unauthorized(f: AuthFailure): Reply {
  return {
    status: 401,
    body: { error: { code: "UNAUTHORIZED", reason: f.reason, message: redact(f.message) } },
  };
}

const errorNote = (err: unknown) =>
  ` error=${redact(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;

/** What a request that threw is answered: its error's status, or 500 with the error logged. */
function failedAnswer(err: unknown): Answer {
  const answer = (reply: Reply, more: Partial<Answer> = {}): Answer => ({
    reply,
    close: false,
    refused: false,
    note: "",
    ...more,
  });
  if (err instanceof BodyTooLarge) return answer(errorReply(413, err.code, err.message), { refused: true });
  if (err instanceof BodyTimedOut) return answer(errorReply(408, err.code, err.message), { close: true });
  if (err instanceof SignatureNotRecorded)
    return answer(errorReply(503, err.code, err.message), { note: errorNote(err.cause) });
  if (err instanceof ValidationError) return answer(errorReply(400, "VALIDATION", err.message, err.issues));
  return answer(errorReply(500, "INTERNAL", "the server failed to answer; see its log"), {
    note: errorNote(err),
  });
}

/** Checks the request's size and signature, then reads its body and routes it. */
async function answerRequest(
  h: RequestHandling,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  expectsContinue: boolean,
): Promise<Answer> {
  try {
    // Before anything else, so a body that cannot be taken is never waited for.
    if (declaresTooLarge(req, h.bodyLimit)) throw new BodyTooLarge(h.bodyLimit);
    const pre = h.auth.precheck(req.headers);
    if ("reason" in pre) {
      // Told no "100 Continue", the client never sends the body it announced: the connection
      // cannot carry another request.
      return { reply: unauthorized(pre), close: expectsContinue, refused: false, note: "" };
    }
    if (expectsContinue) res.writeContinue();
    const body = await readBody(req, { limit: h.bodyLimit, timeoutMs: h.bodyTimeoutMs });
    const method = req.method ?? "GET";
    const failed = await h.auth.verify(method, req.url ?? "/", body, pre.timestamp, pre.signature);
    const reply = failed ? unauthorized(failed) : await route(h.ctx, method, url, body);
    return { reply, close: false, refused: false, note: "" };
  } catch (err) {
    return failedAnswer(err);
  }
}

/**
 * Answers one request and logs it (`http.request`).
 * `expectsContinue`: the client waits for "100 Continue" before it sends the body.
 */
export async function handleRequest(
  h: RequestHandling,
  req: IncomingMessage,
  res: ServerResponse,
  expectsContinue = false,
): Promise<void> {
  const started = performance.now();
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://server");
  let status: number;
  let note = "";
  if (isConsolePath(url.pathname)) {
    ({ status, note } = await handleConsole(h.console, req, res, url));
  } else {
    const a = await answerRequest(h, req, res, url, expectsContinue);
    if (a.refused) sendRefusal(req, res, a.reply, h.bodyTimeoutMs);
    else send(res, a.reply, a.close);
    status = a.reply.status;
    note = a.note;
  }
  const ms = Math.round(performance.now() - started);
  // The path only: a query string may carry the console's one-time token.
  h.log(redact(`${method} ${url.pathname} ${status} ${ms}ms${note}`), {
    event: "http.request",
    level: status >= 500 ? "error" : "info",
    method,
    path: redact(url.pathname),
    status,
    ms,
  });
}
