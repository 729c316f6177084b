import { ExitCode, formatIssues, type Issue, SkillsyncError } from "../../core/errors.js";

interface ApiErrorInit {
  slug: string;
  status?: number | undefined;
  traceId?: string | null | undefined;
  cause?: unknown;
}

/**
 * A call that did not succeed. `retryable` says whether sending the same request again is safe
 * and sensible *without risking a second charge*; `maybeCharged` says whether the service may
 * have accepted (and billed) it, so the ledger can mark the call ambiguous.
 */
export abstract class SkillApiError extends SkillsyncError {
  readonly slug: string;
  readonly status: number | undefined;
  readonly traceId: string | null;
  abstract readonly retryable: boolean;
  abstract readonly maybeCharged: boolean;
  constructor(code: string, message: string, init: ApiErrorInit, exitCode: ExitCode = ExitCode.failure) {
    super(code, message, exitCode, init.cause === undefined ? undefined : { cause: init.cause });
    this.slug = init.slug;
    this.status = init.status;
    this.traceId = init.traceId ?? null;
  }
}

/** HTTP 401: the API key is missing, invalid or not matched to a user. */
export class AuthError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = false;
  constructor(init: ApiErrorInit) {
    super(
      "AUTH",
      `${init.slug}: the API key was refused (HTTP 401); check SKILL_API_KEY`,
      init,
      ExitCode.auth,
    );
  }
}

/** HTTP 403: authenticated, but the account has no access to this operation or resource. */
export class AccessError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = false;
  constructor(init: ApiErrorInit) {
    super(
      "ACCESS",
      `${init.slug}: the account has no access to this operation or resource (HTTP 403)`,
      init,
      ExitCode.auth,
    );
  }
}

/** HTTP 429: rate limited. Safe to retry after `retryAfterMs`: the call was not processed. */
export class RateLimitError extends SkillApiError {
  readonly retryable = true;
  readonly maybeCharged = false;
  readonly retryAfterMs: number | undefined;
  constructor(
    init: ApiErrorInit & { retryAfterMs?: number | undefined; gaveUpAfterMs?: number | undefined },
  ) {
    const wait =
      init.gaveUpAfterMs !== undefined
        ? `; no call succeeded for ${Math.round(init.gaveUpAfterMs / 1000)} s (raise --rate-limit-timeout, or lower --rate)`
        : init.retryAfterMs === undefined
          ? ""
          : `; retry after ${Math.ceil(init.retryAfterMs / 1000)} s`;
    super("RATE_LIMITED", `${init.slug}: rate limited (HTTP 429)${wait}`, init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** HTTP 200 with envelope `code` ≠ 0: the platform refused the request. */
export class PlatformError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = false;
  readonly platformCode: number;
  readonly platformMessage: string | null;
  constructor(init: ApiErrorInit & { platformCode: number; platformMessage: string | null }) {
    super(
      "PLATFORM",
      `${init.slug}: platform error ${init.platformCode}${init.platformMessage ? `: ${init.platformMessage}` : ""}`,
      init,
    );
    this.platformCode = init.platformCode;
    this.platformMessage = init.platformMessage;
  }
}

/** Other 4xx answers (400, 402, 404, 409, 410, 413): the request was refused as sent. */
export class RequestError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = false;
  constructor(init: ApiErrorInit & { detail?: string | undefined }) {
    super(
      "REQUEST_REFUSED",
      `${init.slug}: the service refused the request (HTTP ${init.status})${init.detail ? `: ${init.detail}` : ""}`,
      init,
    );
  }
}

/** HTTP 5xx: the service or an upstream failed. The call may have been processed and billed. */
export class ServerError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = true;
  constructor(init: ApiErrorInit) {
    super(
      "SERVER",
      `${init.slug}: the service failed (HTTP ${init.status}); not retried automatically, the call may have been billed`,
      init,
    );
  }
}

/**
 * The connection failed or timed out. `sent` says whether the request may have reached the
 * server: when it did not (connection refused), retrying is free; when it did, it is not retried.
 */
export class TransportError extends SkillApiError {
  readonly retryable: boolean;
  readonly maybeCharged: boolean;
  readonly sent: boolean;
  readonly timeout: boolean;
  constructor(init: ApiErrorInit & { sent: boolean; timeout: boolean; detail: string }) {
    super(
      "TRANSPORT",
      `${init.slug}: ${init.timeout ? "timed out" : "connection failed"} (${init.detail})${init.sent ? "; the request may have reached the service" : "; nothing was sent"}`,
      init,
    );
    this.sent = init.sent;
    this.timeout = init.timeout;
    this.retryable = !init.sent;
    this.maybeCharged = init.sent;
  }
}

/**
 * What answered at the base URL is not the Skill API: a web page (HTML) refusing the path or the
 * method (HTTP 4xx, 501) where the API answers JSON — a wrong --base-url. Nothing was billed: no
 * operation ran. (A gateway's 502/503/504 page in front of the API stays a ServerError.)
 */
export class NotTheApiError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = false;
  /** What answered, for a person: the status, the content type and the page's title or first words. */
  readonly answered: string;
  constructor(init: ApiErrorInit & { answered: string }) {
    super(
      "NOT_THE_API",
      `${init.slug}: what answered is not the Skill API (${init.answered}); nothing was billed`,
      init,
    );
    this.answered = init.answered;
  }
}

/** The body is not the envelope, or `data` violates its schema. The call was likely billed. */
export class ResponseShapeError extends SkillApiError {
  readonly retryable = false;
  readonly maybeCharged = true;
  readonly issues: Issue[];
  constructor(init: ApiErrorInit & { issues: Issue[] }) {
    super("RESPONSE_SHAPE", formatIssues(`response from ${init.slug}`, init.issues), init);
    this.issues = init.issues;
  }
}
