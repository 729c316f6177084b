/**
 * Waiting rules for the only two failures that are safe to repeat: a 429 (the call was not
 * processed) and a connection that failed before anything was sent. Everything else is final.
 */

/**
 * Reads a `Retry-After` header: delay-seconds or an HTTP date. Returns milliseconds (never
 * negative), or undefined when the header is absent or unreadable.
 *
 * @example
 * parseRetryAfter("3"); // 3000
 * parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT", Date.parse("Wed, 21 Oct 2026 07:27:58 GMT")); // 2000
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  // Only the HTTP-date form carries letters; a bare negative or garbage number is unreadable.
  if (!/[a-z]/i.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Capped exponential backoff with full jitter: a random wait in [0, min(cap, base·2^retry)].
 * `retry` counts from 0 for the first retry.
 *
 * @example
 * backoffDelay(2, 500, 60_000); // somewhere in 0..2000 ms
 */
export function backoffDelay(
  retry: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
