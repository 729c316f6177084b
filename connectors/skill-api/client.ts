import { fromZodIssues, ValidationError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import {
  genericData,
  genericRequest,
  getOperation,
  operationPath,
  SLUG_PATTERN,
} from "../../schema/catalog.js";
import { resolveConfig, type SkillApiConfig, type SkillClientOptions } from "./config.js";
import { RateLimitError, TransportError } from "./errors.js";
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

  constructor(init: SkillClientInit = {}, env: NodeJS.ProcessEnv = process.env) {
    this.config = resolveConfig(init, env);
    this.#transport = new HttpTransport(this.config);
    this.#onRetry = init.onRetry;
    this.#random = init.random ?? Math.random;
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
    const retries = { rate: 0, connect: 0 };
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.#transport.post({ slug, url, headers, payload, signal: opts.signal });
        const out = interpretResponse(slug, res, dataSchema);
        return {
          slug,
          data: out.data,
          envelope: out.envelope,
          status: res.status,
          traceId: out.traceId,
          elapsedMs: Math.round(performance.now() - started),
          attempts: attempt,
        } as CallResult<S>;
      } catch (err) {
        const next = this.#retryPlan(err, retries);
        if (!next) throw err;
        this.#onRetry?.({ slug, attempt, delayMs: next.delayMs, reason: next.reason, error: err as Error });
        await sleep(next.delayMs, opts.signal).catch((reason: unknown) => {
          throw new TransportError({
            slug,
            sent: false,
            timeout: false,
            detail: "aborted while waiting to retry",
            cause: reason,
          });
        });
      }
    }
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
    retries: { rate: number; connect: number },
  ): { delayMs: number; reason: RetryInfo["reason"] } | undefined {
    const { maxRateLimitRetries, maxConnectRetries, retryBaseDelayMs, maxRetryDelayMs } = this.config;
    if (err instanceof RateLimitError && retries.rate < maxRateLimitRetries) {
      const wait =
        err.retryAfterMs ?? backoffDelay(retries.rate, retryBaseDelayMs, maxRetryDelayMs, this.#random);
      retries.rate++;
      return { delayMs: Math.min(wait, maxRetryDelayMs), reason: "rate-limited" };
    }
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
