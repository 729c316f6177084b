import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";

/** The response envelope of contract 2.1. */
export interface EnvelopeBody {
  code: number;
  msg: string | null;
  data: Record<string, unknown> | null;
  ts: string;
  time: string;
  cost: string;
  traceId: string | null;
}

/**
 * Text produced piece by piece (a report part of a million rows): streamed into the JSON answer
 * instead of being built as one string first.
 */
export class LazyText {
  constructor(private readonly produce: () => Iterable<string>) {}

  chunks(): Iterable<string> {
    return this.produce();
  }

  toString(): string {
    let s = "";
    for (const chunk of this.produce()) s += chunk;
    return s;
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** Server local time as `yyyy-MM-dd HH:mm:ss`. */
function formatTime(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Unique trace ids: a random per-instance prefix and a counter (cheap, never repeated within a run). */
export class TraceIds {
  private readonly prefix = randomBytes(6).toString("hex");
  private n = 0;
  next(): string {
    this.n += 1;
    return `${this.prefix}${this.n.toString(16).padStart(8, "0")}`;
  }
}

export function envelope(
  code: number,
  msg: string | null,
  data: Record<string, unknown> | null,
  startedMs: number,
  traceId: string,
): EnvelopeBody {
  const now = Date.now();
  return {
    code,
    msg,
    data,
    ts: String(now),
    time: formatTime(new Date(now)),
    cost: String(now - startedMs),
    traceId,
  };
}

export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  contentType = "application/json; charset=utf-8",
): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

const CONTENT_MARK = "\u0000lazy-content\u0000";
const CONTENT_MARK_JSON = JSON.stringify(CONTENT_MARK);

/** Sends an envelope; a LazyText member of `data` is streamed (chunked, with backpressure). */
export async function sendEnvelope(
  res: ServerResponse,
  status: number,
  body: EnvelopeBody,
  headers: Record<string, string> = {},
): Promise<void> {
  const lazyKey = body.data
    ? Object.keys(body.data).find((k) => body.data?.[k] instanceof LazyText)
    : undefined;
  if (!lazyKey || !body.data) return sendText(res, status, JSON.stringify(body), headers);
  const lazy = body.data[lazyKey] as LazyText;
  const text = JSON.stringify({ ...body, data: { ...body.data, [lazyKey]: CONTENT_MARK } });
  const at = text.indexOf(CONTENT_MARK_JSON);
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  let buffer = `${text.slice(0, at)}"`;
  for (const chunk of lazy.chunks()) {
    buffer += JSON.stringify(chunk).slice(1, -1);
    if (buffer.length >= 64 * 1024) {
      if (res.destroyed) return;
      if (!res.write(buffer)) await drained(res);
      buffer = "";
    }
  }
  if (res.destroyed) return;
  res.end(`${buffer}"${text.slice(at + CONTENT_MARK_JSON.length)}`);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
