import type { IncomingHttpHeaders } from "node:http";
import { type Dispatcher, errors, Pool } from "undici";
import { redact } from "../../core/redact.js";
import type { SkillApiConfig } from "./client-config.js";
import { TransportError } from "./errors.js";

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface PostRequest {
  /** Only for error messages. */
  slug: string;
  url: URL;
  headers: Record<string, string>;
  payload: string;
  signal?: AbortSignal | undefined;
}

/** Codes undici gives when a pool was closed under a call: nothing was sent, but retrying cannot help. */
const POOL_GONE = new Set(["UND_ERR_CLOSED", "UND_ERR_DESTROYED"]);

/** True when a TransportError came from a closed pool or an abort, not from the network. */
export function isFinalTransportError(err: TransportError): boolean {
  const cause = err.cause as { code?: unknown; name?: unknown } | undefined;
  return (typeof cause?.code === "string" && POOL_GONE.has(cause.code)) || cause?.name === "AbortError";
}

/**
 * POSTs JSON over keep-alive undici pools, one per origin. It never retries: it reports whether
 * the request was handed to a connected socket (`sent`), which is what decides if a retry is free.
 *
 * @example
 * const t = new HttpTransport(config);
 * const res = await t.post({ slug, url, headers, payload: "{}" }); // { status, headers, body }
 */
export class HttpTransport {
  readonly #config: SkillApiConfig;
  readonly #pools = new Map<string, Pool>();
  #closed = false;

  constructor(config: SkillApiConfig) {
    this.#config = config;
  }

  post(req: PostRequest): Promise<HttpResponse> {
    if (this.#closed)
      return Promise.reject(this.#transportError(req.slug, new errors.ClientClosedError(), false));
    const pool = this.#pool(req.url.origin);
    const { signal } = req;
    return new Promise<HttpResponse>((resolve, reject) => {
      // `sent` turns true when undici hands the request to a connected socket, just before writing it.
      // Any failure before that point (refused, DNS, connect timeout) provably sent nothing.
      let sent = false;
      let settled = false;
      let controller: Dispatcher.DispatchController | undefined;

      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        fn();
      };
      const fail = (err: unknown) => finish(() => reject(this.#transportError(req.slug, err, sent)));
      const onAbort = () => {
        const reason = abortReason(signal);
        if (controller) controller.abort(reason);
        else fail(reason); // still queued: undici drops it at connect time, before writing
      };
      if (signal?.aborted) {
        fail(abortReason(signal));
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });

      const handler = wholeResponse({
        start: (ctrl) => {
          controller = ctrl;
          if (settled) ctrl.abort(abortReason(signal));
          else sent = true;
        },
        end: (response) => finish(() => resolve(response)),
        error: fail,
      });
      pool.dispatch(this.#dispatchOptions(req), handler);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }

  #pool(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.#config.connections,
        pipelining: 1,
        connect: { timeout: this.#config.connectTimeoutMs },
        headersTimeout: this.#config.headersTimeoutMs,
        bodyTimeout: this.#config.bodyTimeoutMs,
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  #dispatchOptions(req: PostRequest): Dispatcher.DispatchOptions {
    return {
      origin: req.url.origin,
      path: `${req.url.pathname}${req.url.search}`,
      method: "POST",
      headers: req.headers,
      body: req.payload,
      headersTimeout: this.#config.headersTimeoutMs,
      bodyTimeout: this.#config.bodyTimeoutMs,
    };
  }

  #transportError(slug: string, err: unknown, sent: boolean): TransportError {
    const { detail, timeout } = describe(err, this.#config);
    return new TransportError({ slug, sent, timeout, detail: redact(detail), cause: err });
  }
}

/**
 * An undici handler that gathers the whole response: `start` when the request is handed to a
 * connected socket, then `end` with the status, headers and body, or `error`.
 */
function wholeResponse(on: {
  start: (ctrl: Dispatcher.DispatchController) => void;
  end: (response: HttpResponse) => void;
  error: (err: Error) => void;
}): Dispatcher.DispatchHandler {
  let status = 0;
  let headers: IncomingHttpHeaders = {};
  const chunks: Buffer[] = [];
  return {
    onRequestStart: (ctrl) => on.start(ctrl),
    onResponseStart: (_ctrl, statusCode, responseHeaders) => {
      status = statusCode;
      headers = responseHeaders;
    },
    onResponseData: (_ctrl, chunk) => {
      chunks.push(chunk);
    },
    onResponseEnd: () => on.end({ status, headers, body: Buffer.concat(chunks).toString("utf8") }),
    onResponseError: (_ctrl, err) => on.error(err),
  };
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException(reason instanceof Error ? reason.message : "the call was aborted", "AbortError");
}

/** A short human reason for an undici or socket error, and whether it was a timeout. */
function describe(err: unknown, config: SkillApiConfig): { detail: string; timeout: boolean } {
  const e = (err ?? {}) as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    address?: unknown;
    port?: unknown;
  };
  const code = typeof e.code === "string" ? e.code : undefined;
  const message = typeof e.message === "string" ? e.message : String(err);
  const where =
    typeof e.address === "string" ? ` ${e.address}${e.port === undefined ? "" : `:${String(e.port)}`}` : "";
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return { detail: `no connection within ${config.connectTimeoutMs} ms`, timeout: true };
    case "UND_ERR_HEADERS_TIMEOUT":
      return { detail: `no response headers within ${config.headersTimeoutMs} ms`, timeout: true };
    case "UND_ERR_BODY_TIMEOUT":
      return { detail: `the response body stalled for ${config.bodyTimeoutMs} ms`, timeout: true };
    case "UND_ERR_CLOSED":
    case "UND_ERR_DESTROYED":
      return { detail: "the client was closed", timeout: false };
    case "UND_ERR_SOCKET":
      return { detail: `the connection closed before a full response (${message})`, timeout: false };
    case "ECONNREFUSED":
      return { detail: `connection refused${where}`, timeout: false };
    case "ECONNRESET":
      return { detail: `connection reset${where}`, timeout: false };
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return { detail: `cannot resolve the host (${code})`, timeout: false };
    case "ETIMEDOUT":
      return { detail: `the connection timed out (${code})`, timeout: true };
    default:
      if (e.name === "AbortError") return { detail: "aborted by the caller", timeout: false };
      return { detail: code ? `${code}: ${message}` : message, timeout: false };
  }
}
