import { redact } from "../../core/redact.js";
import { parseRetryAfter } from "../skill-api/retry.js";

/**
 * When the connector tries a Sheets request again. Google's write quotas are per minute and
 * refill a minute after they ran out, so the defaults keep trying for 90 s: a retry budget shorter
 * than the quota window gives up just before the quota comes back.
 */
export interface RetryPolicy {
  /** The first wait; each further wait doubles up to `maxDelayMs`. Every wait is at least half its step. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Keep retrying until this long after the first failure (the last try starts at or after it). */
  giveUpAfterMs: number;
  /** An extra bound on the number of retries (default: none, the time window decides). */
  maxRetries: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  baseDelayMs: 1000,
  maxDelayMs: 20_000,
  giveUpAfterMs: 90_000,
  maxRetries: Number.POSITIVE_INFINITY,
};

/**
 * The wait before retry number `retry` (0 first): exponential with a floor and jitter, so many
 * clients do not come back at the same instant, yet none comes back too early. A `Retry-After`
 * from Google wins when it is longer.
 *
 * @example retryDelay(3, DEFAULT_RETRY, undefined) // between 4000 and 8000 ms
 */
export function retryDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retry, 30));
  return Math.max(Math.round(step / 2 + (random() * step) / 2), retryAfterMs ?? 0);
}

/** Whether a failed request may be tried again, given how long it has been failing. */
export function mayRetry(policy: RetryPolicy, retries: number, failingSinceMs: number): boolean {
  return retries < policy.maxRetries && failingSinceMs < policy.giveUpAfterMs;
}

export interface HttpFailure {
  status: number | undefined;
  message: string;
  retryAfterMs: number | undefined;
  /**
   * quota: a 429, nothing was done. ambiguous: a 5xx or a broken connection, the change may have
   * landed. final: the answer is the answer.
   */
  kind: "quota" | "ambiguous" | "final";
}

// A connection that broke or timed out after the request may have been sent. A refused
// connection or an unknown host is left final: that is a wrong URL more often than an outage.
const BROKEN_CONNECTION = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

function kindOf(status: number | undefined, code: unknown): HttpFailure["kind"] {
  if (status === 429) return "quota";
  if (status === 500 || status === 502 || status === 503 || status === 504) return "ambiguous";
  if (status === undefined && typeof code === "string" && BROKEN_CONNECTION.has(code)) return "ambiguous";
  return "final";
}

/** What a googleapis (gaxios) error says, with secrets masked. */
export function failureOf(err: unknown): HttpFailure {
  const e = err as {
    status?: number;
    code?: unknown;
    message?: string;
    response?: { status?: number; headers?: { get?(n: string): string | null }; data?: unknown };
  };
  const raw = e.response?.status ?? e.status;
  const status = typeof raw === "number" ? raw : undefined;
  const data = e.response?.data as { error?: { message?: string } } | undefined;
  const header = e.response?.headers?.get?.("retry-after") ?? undefined;
  return {
    status,
    message: redact(data?.error?.message ?? e.message ?? String(err)),
    retryAfterMs: parseRetryAfter(header ?? undefined),
    kind: kindOf(status, e.code),
  };
}
