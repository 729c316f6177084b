import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Request signing shared by the server and its clients (the Apps Script add-on computes the same
 * value with Utilities.computeHmacSha256Signature). Every request carries two headers:
 *   X-Skillsync-Timestamp: Unix seconds
 *   X-Skillsync-Signature: hex HMAC-SHA256(secret, timestamp + "\n" + METHOD + "\n" + pathWithQuery + "\n" + body)
 */
export const TIMESTAMP_HEADER = "x-skillsync-timestamp";
export const SIGNATURE_HEADER = "x-skillsync-signature";
/** How far a timestamp may be from the server's clock. */
export const MAX_SKEW_SECONDS = 300;
export const MIN_SECRET_LENGTH = 32;

export interface SignedParts {
  /** Unix seconds, as the decimal text sent in the header. */
  timestamp: string | number;
  /** Upper-cased before signing: "GET", "POST". */
  method: string;
  /** The request target exactly as sent: path and query, e.g. `/tables/results?limit=10`. */
  pathWithQuery: string;
  /** The raw body text ("" for GET). */
  body: string;
}

/** The exact text that is signed. */
export function canonicalRequest(p: SignedParts): string {
  return `${p.timestamp}\n${p.method.toUpperCase()}\n${p.pathWithQuery}\n${p.body}`;
}

/**
 * The signature of a request, as lowercase hex.
 *
 * @example
 * signRequest("0123456789abcdef0123456789abcdef", { timestamp: 1700000000, method: "POST",
 *   pathWithQuery: "/runs", body: '{"pipeline":"marketplace-search"}' })
 * // "6f1e…" (64 hex characters)
 */
export function signRequest(secret: string, p: SignedParts): string {
  return createHmac("sha256", secret).update(canonicalRequest(p), "utf8").digest("hex");
}

/** Headers for a signed request made now (for clients and tests). */
export function signedHeaders(
  secret: string,
  p: Omit<SignedParts, "timestamp"> & { timestamp?: number },
): Record<string, string> {
  const timestamp = String(p.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    "X-Skillsync-Timestamp": timestamp,
    "X-Skillsync-Signature": signRequest(secret, { ...p, timestamp }),
  };
}

/** Compares a given signature with the expected one in constant time. */
export function signatureMatches(secret: string, p: SignedParts, given: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const want = Buffer.from(signRequest(secret, p), "hex");
  return timingSafeEqual(want, Buffer.from(given.toLowerCase(), "hex"));
}
