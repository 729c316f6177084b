import type { IncomingHttpHeaders } from "node:http";
import type { Kysely } from "kysely";
import type { AnyDB } from "../connectors/warehouse/open.js";
import { SkillsyncError } from "../core/errors.js";
import { claimSignature, pruneSignatures } from "../store/request-signatures.js";
import { MAX_SKEW_SECONDS, SIGNATURE_HEADER, signatureMatches, TIMESTAMP_HEADER } from "./signature.js";

/** Which check refused a request: the 401 body's `error.reason`, stable for programs (docs/server.md). */
type AuthReason =
  | "SIGNATURE_MISSING"
  | "TIMESTAMP_INVALID"
  | "TIMESTAMP_OUT_OF_WINDOW"
  | "SIGNATURE_INVALID"
  | "SIGNATURE_REPLAYED";

/** Why a request was refused (said in the 401 body; never echoes the signature). */
export type AuthFailure = { reason: AuthReason; message: string };

/** The warehouse could not record a signature: the request is refused with 503, never accepted unrecorded. */
export class SignatureNotRecorded extends SkillsyncError {
  constructor(cause: unknown) {
    super(
      "SIGNATURE_NOT_RECORDED",
      "nothing was done: the server could not record the request's signature in its warehouse (is the database up?); try again shortly",
      undefined,
      { cause },
    );
  }
}

/** How often expired signature records are deleted (by whichever request comes then). */
const PRUNE_EVERY_MS = 60_000;

/**
 * How long a record is kept past its expiry: a server whose clock runs behind the pruning one
 * still accepts the timestamp a little longer, and must still find the record meanwhile.
 */
const PRUNE_GRACE_MS = 10 * 60_000;

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks signed requests: headers present, timestamp within ±300 s, HMAC right, and the signature
 * never accepted before by any server of the warehouse (skillsync_request_signatures): replays are
 * refused on this server, after its restart and on every other server of the same warehouse.
 */
export class RequestAuthenticator {
  private lastPrune = Number.NEGATIVE_INFINITY;
  private pruning: Promise<void> | undefined;

  constructor(
    private readonly secret: string,
    private readonly db: Kysely<AnyDB>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cheap checks, before the body is read. */
  precheck(headers: IncomingHttpHeaders): AuthFailure | { timestamp: string; signature: string } {
    const timestamp = header(headers, TIMESTAMP_HEADER);
    const signature = header(headers, SIGNATURE_HEADER);
    if (!timestamp || !signature) {
      return {
        reason: "SIGNATURE_MISSING",
        message: "missing X-Skillsync-Timestamp or X-Skillsync-Signature header",
      };
    }
    if (!/^\d{1,12}$/.test(timestamp)) {
      return { reason: "TIMESTAMP_INVALID", message: "X-Skillsync-Timestamp must be Unix seconds" };
    }
    const skew = Math.abs(this.now() / 1000 - Number(timestamp));
    if (skew > MAX_SKEW_SECONDS) {
      return {
        reason: "TIMESTAMP_OUT_OF_WINDOW",
        message: `timestamp is ${Math.round(skew)} s away from the server's clock (at most ${MAX_SKEW_SECONDS} s)`,
      };
    }
    return { timestamp, signature };
  }

  /**
   * The signature over the whole request; a good one is recorded in the warehouse so that it
   * cannot be used again. The record is committed on its own BEFORE the request's effect runs:
   * a replay can then never race the effect (two servers given the same signature at once: one
   * insert wins), at the cost that a request whose effect failed must be signed anew — which
   * clients do for every request anyway. Throws SignatureNotRecorded when the warehouse fails.
   */
  async verify(
    method: string,
    pathWithQuery: string,
    body: string,
    timestamp: string,
    signature: string,
  ): Promise<AuthFailure | undefined> {
    if (!signatureMatches(this.secret, { timestamp, method, pathWithQuery, body }, signature)) {
      return { reason: "SIGNATURE_INVALID", message: "bad signature" };
    }
    // A timestamp is accepted up to MAX_SKEW ahead or behind, so remember it that long past its own time.
    const expiresAt = new Date((Number(timestamp) + MAX_SKEW_SECONDS + 1) * 1000);
    const fresh = await claimSignature(this.db, signature, expiresAt).catch((err: unknown) => {
      throw new SignatureNotRecorded(err);
    });
    this.pruneNowAndThen();
    if (!fresh) return { reason: "SIGNATURE_REPLAYED", message: "signature already used (replay)" };
    return undefined;
  }

  /** Waits for a prune under way, so the warehouse can be closed. */
  async settled(): Promise<void> {
    await this.pruning;
  }

  /**
   * Deletes expired records at most once a minute, beside the requests rather than in their way.
   * A failed prune is tried again a minute later; rows left meanwhile are only kept longer.
   */
  private pruneNowAndThen(): void {
    const now = this.now();
    if (this.pruning || now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pruning = pruneSignatures(this.db, new Date(now - PRUNE_GRACE_MS)).then(
      () => {
        this.pruning = undefined;
      },
      () => {
        this.pruning = undefined;
      },
    );
  }
}
