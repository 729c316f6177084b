import { request } from "undici";

/** What is read of a receiver's answer at most: only its status matters. */
const MAX_ANSWER_BYTES = 4096;

export interface PostResult {
  ok: boolean;
  /** The HTTP status, or undefined when no answer came. */
  status?: number | undefined;
  /** Why it failed, short and without the URL (which holds a token): `HTTP 500`, `ECONNREFUSED`, `timed out`. */
  error?: string | undefined;
}

/**
 * POSTs one JSON body to a webhook, never throwing: a 2xx is delivered, anything else (an answer
 * of another status, a refused connection, the time-out or `signal`) is a failure to try again
 * later. The connection is closed after each POST (webhooks are rare; nothing keeps a process up).
 */
export async function postJson(
  url: string,
  body: unknown,
  o: { headers?: Record<string, string>; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<PostResult> {
  const signal = o.signal
    ? AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)])
    : AbortSignal.timeout(o.timeoutMs);
  try {
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "skillsync", ...o.headers },
      body: JSON.stringify(body),
      signal,
      reset: true,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    await drain(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { ok, status: res.statusCode, ...(ok ? {} : { error: `HTTP ${res.statusCode}` }) };
  } catch (err) {
    return { ok: false, error: reason(err, signal) };
  }
}

/** Reads at most MAX_ANSWER_BYTES of the answer, then lets the rest go. */
async function drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let n = 0;
  for await (const chunk of body) {
    n += chunk.length;
    if (n > MAX_ANSWER_BYTES) {
      body.destroy();
      return;
    }
  }
}

function reason(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "timed out";
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string") return code;
  return err instanceof Error ? err.name : "failed";
}
