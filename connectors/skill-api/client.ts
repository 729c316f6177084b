import { createHash } from "node:crypto";
import { fromZodIssues, ValidationError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import {
  genericData,
  genericRequest,
  getOperation,
  operationPath,
  SLUG_PATTERN,
} from "../../schema/catalog.js";
import { resolveConfig, type SkillApiConfig, type SkillClientOptions } from "./client-config.js";
import { RateLimitError, TransportError } from "./errors.js";
import { memoryRateStores, RateGate, type RateStore } from "./rate-gate.js";
import { interpretResponse } from "./response.js";
import { backoffDelay, sleep } from "./retry.js";
import { HttpTransport, isFinalTransportError } from "./transport.js";
import type { CallOptions, CallResult, InputOf, PreparedCall, RetryInfo } from "./types.js";

export interface SkillClientInit extends SkillClientOptions {
  /** Called before each automatic retry (progress, logging). Must not throw. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /** Source of jitter in [0, 1); tests pass a fixed one. */
  random?: (() => number) | undefined;
}

/**
 * The typed Skill API client. Requests are validated before anything is sent; only a 429 and a
 * connection that failed before sending are retried, because any other retry could pay twice.
 *
 * @example
 * const client = new SkillClient(); // SKILL_API_BASE_URL, SKILL_API_KEY
 * const { data } = await client.call("patent-claims", { patentNumber: "US10000000B2" });
 * data?.data?.[0]?.claimCount; // typed from schema/
 * await client.close();
 */
export class SkillClient {
  readonly config: SkillApiConfig;
  readonly #transport: HttpTransport;
  readonly #onRetry: ((info: RetryInfo) => void) | undefined;
  readonly #random: () => number;
  readonly #gate: RateGate;

  constructor(init: SkillClientInit = {}, env?: NodeJS.ProcessEnv) {
    this.config = resolveConfig(init, env);
    this.#transport = new HttpTransport(this.config);
    this.#onRetry = init.onRetry;
    this.#random = init.random ?? Math.random;
    this.#gate = new RateGate(memoryRateStores(), {
      declared: this.config.rate,
      timeoutMs: this.config.rateLimitTimeoutMs,
      random: this.#random,
    });
  }

  /**
   * Paces this client's calls with every process that shares the store made for its account (a
   * hash of the API's URL and the key, never the key): runs, workers and a teammate's run on one
   * warehouse slow down together under one rate limit.
   */
  shareRateLimit(storeFor: (account: string, declared: number | null) => RateStore): void {
    const account = createHash("sha256")
      .update(`${this.config.baseUrl}\n${this.config.apiKey}`)
      .digest("hex")
      .slice(0, 16);
    this.#gate.share((scope, declared) => storeFor(scope ? `${account}:${scope}` : account, declared));
  }

  /** Requests the API refused with 429 so far, and the pace the calls go at (null: unpaced). */
  get rateLimit(): { refusals: number; pace: number | null } {
    return { refusals: this.#gate.refusals, pace: this.#gate.pace };
  }

  /**
   * Validates a request without sending it: the documented operations against their schema
   * (defaults applied), any other slug as a JSON object. Throws ValidationError.
   *
   * @example
   * client.prepare("websearch-patent-search", { q: "drone" }).body; // { q: "drone", num: 10, page: 1, … }
   */
  prepare<S extends string>(slug: S, body: unknown): PreparedCall<S> {
    if (!SLUG_PATTERN.test(slug)) {
      throw new ValidationError(`slug "${redact(slug)}"`, [
        { path: [], message: "an operation slug is lowercase letters and digits joined by hyphens" },
      ]);
    }
    const source = `request to ${slug}`;
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      const got = body === null ? "null" : Array.isArray(body) ? "an array" : typeof body;
      throw new ValidationError(source, [
        { path: [], message: `the body must be a JSON object, got ${got}` },
      ]);
    }
    const schema = getOperation(slug)?.request ?? genericRequest;
    const result = schema.safeParse(body);
    if (!result.success) {
      const issues = fromZodIssues(result.error.issues).map((i) => ({ ...i, message: redact(i.message) }));
      throw new ValidationError(source, issues);
    }
    return { slug, body: result.data } as PreparedCall<S>;
  }

  /** Sends a prepared request; retries only what is free to retry. Throws a SkillApiError. */
  async send<S extends string>(prepared: PreparedCall<S>, opts: CallOptions = {}): Promise<CallResult<S>> {
    const { slug } = prepared;
    const payload = serialise(slug, prepared.body);
    const url = new URL(`${this.config.baseUrl}${operationPath(slug)}`);
    const headers = {
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${this.config.apiKey}`,
    };
    const dataSchema = getOperation(slug)?.data ?? genericData;
    const started = performance.now();
    const firstTry = Date.now();
    const retries = { rate: 0, connect: 0 };
    for (let attempt = 1; ; attempt++) {
      const skillRate = opts.rateLimit ? { slug, rate: opts.rateLimit } : undefined;
      const sentAt = await this.#gate.before(opts.signal, skillRate).catch(abortedWaiting(slug));
      try {
        const res = await this.#transport.post({ slug, url, headers, payload, signal: opts.signal });
        if (res.status !== 429) this.#gate.succeeded();
        const out = interpretResponse(slug, res, dataSchema);
        return {
          slug,
          data: out.data,
          envelope: out.envelope,
          text: out.text,
          status: res.status,
          traceId: out.traceId,
          elapsedMs: Math.round(performance.now() - started),
          attempts: attempt,
        } as CallResult<S>;
      } catch (err) {
        if (err instanceof RateLimitError) {
          opts.onRateLimited?.();
          await this.#waitOutRefusal(err, { sentAt, firstTry }, retries, attempt, opts.signal);
          continue;
        }
        const next = this.#retryPlan(err, retries);
        if (!next) throw err;
        this.#onRetry?.({ slug, attempt, delayMs: next.delayMs, reason: next.reason, error: err as Error });
        await sleep(next.delayMs, opts.signal).catch(abortedWaiting(slug));
      }
    }
  }

  /**
   * A 429 is not a failure: the account's pace drops and the call goes again after Retry-After
   * (with jitter), until no call has succeeded for `rateLimitTimeoutMs` (or `maxRateLimitRetries`).
   */
  async #waitOutRefusal(
    err: RateLimitError,
    at: { sentAt: number; firstTry: number },
    retries: { rate: number },
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { maxRateLimitRetries, retryBaseDelayMs, maxRetryDelayMs, rateLimitTimeoutMs } = this.config;
    if (maxRateLimitRetries !== null && retries.rate >= maxRateLimitRetries) throw err;
    const delayMs = Math.min(
      err.retryAfterMs ?? backoffDelay(retries.rate, retryBaseDelayMs, maxRetryDelayMs, this.#random),
      maxRetryDelayMs,
    );
    retries.rate++;
    this.#onRetry?.({ slug: err.slug, attempt, delayMs, reason: "rate-limited", error: err });
    const goOn = await this.#gate
      .refused(at.sentAt, delayMs, at.firstTry, signal)
      .catch(abortedWaiting(err.slug));
    if (!goOn)
      throw new RateLimitError({
        slug: err.slug,
        status: 429,
        traceId: err.traceId,
        retryAfterMs: err.retryAfterMs,
        gaveUpAfterMs: rateLimitTimeoutMs,
      });
  }

  /**
   * Validates and sends one call. Documented slugs are typed from `schema/`; any other slug
   * of the catalog takes and returns plain JSON objects.
   *
   * @example
   * const r = await client.call("websearch-patent-search", { q: "solar roof tile", num: 20 });
   * r.data?.results.length; r.attempts; r.traceId;
   */
  call<S extends string>(slug: S, body: InputOf<S>, opts: CallOptions = {}): Promise<CallResult<S>> {
    try {
      return this.send(this.prepare(slug, body), opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Closes the keep-alive pools; in-flight calls finish first. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  #retryPlan(
    err: unknown,
    retries: { connect: number },
  ): { delayMs: number; reason: RetryInfo["reason"] } | undefined {
    const { maxConnectRetries, retryBaseDelayMs, maxRetryDelayMs } = this.config;
    if (
      err instanceof TransportError &&
      !err.sent &&
      !isFinalTransportError(err) &&
      retries.connect < maxConnectRetries
    ) {
      const wait = backoffDelay(retries.connect, retryBaseDelayMs, maxRetryDelayMs, this.#random);
      retries.connect++;
      return { delayMs: wait, reason: "connect-failed" };
    }
    return undefined;
  }
}

/** Turns an abort while waiting (for a slot or to retry) into the TransportError that sent nothing. */
function abortedWaiting(slug: string) {
  return (reason: unknown): never => {
    throw new TransportError({
      slug,
      sent: false,
      timeout: false,
      detail: "aborted while waiting to retry",
      cause: reason,
    });
  };
}

function serialise(slug: string, body: unknown): string {
  try {
    const text = JSON.stringify(body);
    if (typeof text === "string") return text;
  } catch (err) {
    throw new ValidationError(`request to ${slug}`, [
      { path: [], message: `the body cannot be written as JSON: ${(err as Error).message}` },
    ]);
  }
  throw new ValidationError(`request to ${slug}`, [
    { path: [], message: "the body cannot be written as JSON" },
  ]);
}
