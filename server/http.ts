import type { IncomingMessage, ServerResponse } from "node:http";
import { type Issue, SkillsyncError } from "../core/errors.js";
import { redact } from "../core/redact.js";

/** What a route answers: a status and a JSON body. */
export interface Reply {
  status: number;
  body: unknown;
}

export const reply = (status: number, body: unknown): Reply => ({ status, body });

/** The error body every failure uses: a stable code, a message, and issues where there are some. */
export function errorReply(status: number, code: string, message: string, issues?: Issue[]): Reply {
  // Issues quote what the request said (a value, a member name): a secret typed there is not echoed.
  const safe = issues?.map((i) => ({
    ...i,
    path: i.path.map((p) => (typeof p === "string" ? redact(p) : p)),
    message: redact(i.message),
  }));
  return { status, body: { error: { code, message: redact(message), ...(safe ? { issues: safe } : {}) } } };
}

/** The request's body is (or says it will be) larger than the server takes: 413. */
export class BodyTooLarge extends SkillsyncError {
  constructor(limit: number) {
    super("BODY_TOO_LARGE", `the body is larger than ${limit} bytes`);
  }
}

/** The request's body did not finish arriving in time: 408. */
export class BodyTimedOut extends SkillsyncError {
  constructor(timeoutMs: number) {
    super("BODY_TIMEOUT", `the body did not arrive within ${timeoutMs} ms`);
  }
}

/** How much of a refused body is read and dropped after the 413, so its client can read the answer. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/** A refused body's connection closes once its client has sent nothing for this long. */
const DRAIN_IDLE_MS = 1_000;

/** Whether the request declares (Content-Length) a body larger than `limit`: refused before any of it is read. */
export function declaresTooLarge(req: IncomingMessage, limit: number): boolean {
  return Number(req.headers["content-length"] ?? 0) > limit;
}

/**
 * Reads a request body as UTF-8 text: refuses a body that declares or reaches more than `limit`
 * bytes (BodyTooLarge, at once) and one that has not finished arriving `timeoutMs` after the
 * headers (BodyTimedOut). What the client still sends after a refusal is not read here: see
 * `sendRefusal`.
 */
export function readBody(req: IncomingMessage, o: { limit: number; timeoutMs: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    if (declaresTooLarge(req, o.limit)) {
      reject(new BodyTooLarge(o.limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (fn: () => void) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new BodyTimedOut(o.timeoutMs))), o.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > o.limit) done(() => reject(new BodyTooLarge(o.limit)));
      else chunks.push(chunk);
    };
    const onEnd = () => done(() => resolve(Buffer.concat(chunks).toString("utf8")));
    const onError = (err: Error) => done(() => reject(err));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

function head(text: string, close: boolean) {
  return {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...(close ? { connection: "close" } : {}),
  };
}

export function send(res: ServerResponse, r: Reply, close = false): void {
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, head(text, close));
  res.end(text);
}

/**
 * Answers a request whose body is refused while the client may still be writing it: the whole
 * answer goes out at once, then what still arrives is read and dropped until the client stops
 * (the body's end, or DRAIN_IDLE_MS without a byte), DRAIN_LIMIT bytes have come, or `maxMs`
 * has passed; only then does the connection close. Closing with the client's bytes unread makes
 * the kernel reset the connection, and a client still writing sees the reset, not the answer.
 */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, r: Reply, maxMs: number): void {
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, head(text, true));
  // The response's end, after which node closes the connection, waits for the drain below.
  res.write(text);
  if (req.complete || req.destroyed) {
    res.end();
    return;
  }
  let dropped = 0;
  const finish = () => {
    clearTimeout(idle);
    clearTimeout(cap);
    req.off("data", onData);
    req.off("end", finish);
    req.off("error", finish);
    req.off("close", finish);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT) finish();
    else idle.refresh();
  };
  const idle = setTimeout(finish, DRAIN_IDLE_MS);
  const cap = setTimeout(finish, maxMs);
  req.on("data", onData);
  req.on("end", finish);
  req.on("error", finish);
  req.on("close", finish);
  req.resume();
}
