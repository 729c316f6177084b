import type { IncomingHttpHeaders } from "node:http";
import { MAX_SKEW_SECONDS, SIGNATURE_HEADER, signatureMatches, TIMESTAMP_HEADER } from "./signature.js";

/** Why a request was refused (said in the 401 body; never echoes the signature). */
export type AuthFailure = { reason: string };

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks signed requests: headers present, timestamp within ±300 s, HMAC right, and the signature
 * not seen before (replays are refused for as long as their timestamp would be accepted).
 */
export class RequestAuthenticator {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
    private readonly maxRemembered = 200_000,
  ) {}

  /** The cheap checks, before the body is read. */
  precheck(headers: IncomingHttpHeaders): AuthFailure | { timestamp: string; signature: string } {
    const timestamp = header(headers, TIMESTAMP_HEADER);
    const signature = header(headers, SIGNATURE_HEADER);
    if (!timestamp || !signature) {
      return { reason: "missing X-Skillsync-Timestamp or X-Skillsync-Signature header" };
    }
    if (!/^\d{1,12}$/.test(timestamp)) return { reason: "X-Skillsync-Timestamp must be Unix seconds" };
    const skew = Math.abs(this.now() / 1000 - Number(timestamp));
    if (skew > MAX_SKEW_SECONDS) {
      return {
        reason: `timestamp is ${Math.round(skew)} s away from the server's clock (at most ${MAX_SKEW_SECONDS} s)`,
      };
    }
    return { timestamp, signature };
  }

  /** The signature over the whole request; a good one is remembered so it cannot be used again. */
  verify(
    method: string,
    pathWithQuery: string,
    body: string,
    timestamp: string,
    signature: string,
  ): AuthFailure | undefined {
    if (!signatureMatches(this.secret, { timestamp, method, pathWithQuery, body }, signature)) {
      return { reason: "bad signature" };
    }
    const key = signature.toLowerCase();
    const now = this.now();
    const expiry = this.seen.get(key);
    if (expiry !== undefined && expiry > now) return { reason: "signature already used (replay)" };
    if (this.seen.size >= this.maxRemembered) this.prune(now);
    if (this.seen.size >= this.maxRemembered)
      return { reason: "too many requests to remember; retry shortly" };
    // A timestamp is accepted up to MAX_SKEW ahead or behind, so remember it that long past its own time.
    this.seen.set(key, Number(timestamp) * 1000 + (MAX_SKEW_SECONDS + 1) * 1000);
    return undefined;
  }

  private prune(now: number): void {
    for (const [k, expiry] of this.seen) if (expiry <= now) this.seen.delete(k);
  }
}
