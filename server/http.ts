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

/**
 * Reads a request body as UTF-8 text, refusing more than `limit` bytes (the rest is not read:
 * the connection is closed after the 413).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
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
