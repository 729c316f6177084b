import type { IncomingMessage, ServerResponse } from "node:http";
import type { Issue } from "../core/errors.js";
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

export class BodyTooLarge extends Error {}

/** How much of a refused body is read and dropped so its client can read the 413 (then the connection closes). */
export const DRAIN_LIMIT = 16 * 1024 * 1024;

/**
 * Reads a request body as UTF-8 text, refusing more than `limit` bytes. A refused body is still
 * read (and dropped) up to DRAIN_LIMIT before the 413 goes out: a server that stops reading while
 * the client is still writing gets its socket reset, and the client sees a connection reset instead
 * of the answer. (Leaving a `for await` early would destroy the request the same way.)
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > limit;
    const done = (fn: () => void) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      fn();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
      else if (size > DRAIN_LIMIT) {
        // Past what is worth reading: answer now, the connection closes after it.
        req.pause();
        done(() => reject(new BodyTooLarge()));
      }
    };
    const onEnd = () =>
      done(() => (tooLarge ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString("utf8"))));
    const onError = (err: Error) => done(() => reject(err));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

export function send(res: ServerResponse, r: Reply, close = false): void {
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
}
