import { readConfig } from "../../core/env-config.js";
import { type Issue, ValidationError } from "../../core/errors.js";
import { registerSecret } from "../../core/redact.js";

/** What a caller may set; anything left out comes from the environment or a default. */
export interface SkillClientOptions {
  /** e.g. `https://api.example.com`; default `SKILL_API_BASE_URL`. */
  baseUrl?: string | undefined;
  /** default `SKILL_API_KEY`. Never printed, logged or put into an error. */
  apiKey?: string | undefined;
  /** Time to open a connection (ms). */
  connectTimeoutMs?: number | undefined;
  /** Time from sending the request to the response headers (ms). Slow paid operations need minutes. */
  headersTimeoutMs?: number | undefined;
  /** Longest silence while the body streams in (ms). */
  bodyTimeoutMs?: number | undefined;
  /**
   * How many times one call's 429 is retried before the RateLimitError reaches the caller; by
   * default a refused call waits and goes again until `rateLimitTimeoutMs` passes without a success.
   */
  maxRateLimitRetries?: number | undefined;
  /** A call gives up on the rate limit only when no call of this client succeeded for this long (ms). */
  rateLimitTimeoutMs?: number | undefined;
  /** A rate limit the account is known to have (calls per second): calls are paced below it. */
  rate?: number | undefined;
  /** How many times a connection that failed before anything was sent is retried. */
  maxConnectRetries?: number | undefined;
  /** First backoff step (ms); doubles per attempt, full jitter. */
  retryBaseDelayMs?: number | undefined;
  /** Cap on any single wait, including the one Retry-After asks for (ms). */
  maxRetryDelayMs?: number | undefined;
  /**
   * Keep-alive connections at most; by default as many as calls are in flight, so the concurrency
   * a run asks for is the concurrency it gets.
   */
  connections?: number | undefined;
}

export interface SkillApiConfig {
  /** Normalised: no trailing slash. */
  readonly baseUrl: string;
  /** Non-enumerable, so printing or serialising the config never shows it. */
  readonly apiKey: string;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly maxRateLimitRetries: number | null;
  readonly rateLimitTimeoutMs: number;
  readonly rate: number | null;
  readonly maxConnectRetries: number;
  readonly retryBaseDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly connections: number | null;
}

const CONFIG_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  maxConnectRetries: 3,
  rateLimitTimeoutMs: 600_000,
  retryBaseDelayMs: 500,
  maxRetryDelayMs: 60_000,
} as const;

type NumericKey = keyof typeof CONFIG_DEFAULTS;
const MINIMUM: Record<NumericKey, number> = {
  connectTimeoutMs: 1,
  headersTimeoutMs: 1,
  bodyTimeoutMs: 1,
  maxConnectRetries: 0,
  rateLimitTimeoutMs: 1,
  retryBaseDelayMs: 0,
  maxRetryDelayMs: 0,
};

/**
 * Resolves options and the environment into a frozen config, or throws one ValidationError
 * (exit 2) listing every problem with what to set.
 *
 * @example
 * const config = resolveConfig({ baseUrl: "http://127.0.0.1:8787" }); // key from SKILL_API_KEY
 */
export function resolveConfig(options: SkillClientOptions = {}, env?: NodeJS.ProcessEnv): SkillApiConfig {
  const issues: Issue[] = [];
  const fromEnv = readConfig(env).skillApi;
  const rawUrl = (options.baseUrl ?? fromEnv.baseUrl ?? "").trim();
  const apiKey = (options.apiKey ?? fromEnv.apiKey ?? "").trim();
  registerSecret(apiKey);

  let baseUrl = "";
  if (rawUrl === "") {
    issues.push({ path: ["baseUrl"], message: "no base URL: set SKILL_API_BASE_URL (or pass --base-url)" });
  } else {
    baseUrl = normaliseBaseUrl(rawUrl, issues);
  }
  if (apiKey === "") {
    issues.push({ path: ["apiKey"], message: "no API key: set SKILL_API_KEY" });
  } else {
    const problem = keyProblem(
      apiKey,
      options.apiKey === undefined ? "SKILL_API_KEY" : "the client's apiKey",
    );
    if (problem) issues.push({ path: ["apiKey"], message: problem });
  }

  const numbers = {} as Record<NumericKey, number>;
  for (const key of Object.keys(CONFIG_DEFAULTS) as NumericKey[]) {
    const value = options[key] ?? CONFIG_DEFAULTS[key];
    if (!Number.isInteger(value) || value < MINIMUM[key]) {
      issues.push({ path: [key], message: `must be an integer >= ${MINIMUM[key]} (got ${String(value)})` });
    }
    numbers[key] = value;
  }
  const maxRateLimitRetries = options.maxRateLimitRetries ?? null;
  if (maxRateLimitRetries !== null && !(Number.isInteger(maxRateLimitRetries) && maxRateLimitRetries >= 0))
    issues.push({
      path: ["maxRateLimitRetries"],
      message: `must be an integer >= 0 (got ${maxRateLimitRetries})`,
    });
  const connections = options.connections ?? null;
  if (connections !== null && !(Number.isInteger(connections) && connections >= 1))
    issues.push({ path: ["connections"], message: `must be an integer >= 1 (got ${connections})` });
  const rate = options.rate ?? null;
  if (rate !== null && !(Number.isFinite(rate) && rate > 0))
    issues.push({ path: ["rate"], message: `must be a number of calls per second > 0 (got ${rate})` });
  if (issues.length > 0) throw new ValidationError("Skill API configuration", issues);

  const config = { baseUrl, ...numbers, maxRateLimitRetries, rate, connections };
  Object.defineProperty(config, "apiKey", { value: apiKey, enumerable: false });
  return Object.freeze(config) as SkillApiConfig;
}

/**
 * Why a key cannot be sent, if it cannot: it travels in an HTTP header, which takes printable
 * ASCII only (undici sends é as Latin-1, refuses €, and a line break would end the header). Said
 * by position, never by the character: the message must not carry any of the key.
 */
function keyProblem(key: string, from: string): string | undefined {
  const at = key.search(/[^\x21-\x7e]/);
  if (at < 0) return undefined;
  const what = /\s/.test(key[at]!)
    ? "whitespace"
    : /[\x00-\x1f\x7f]/.test(key[at]!)
      ? "a control character"
      : "a character outside ASCII";
  return `the API key in ${from} contains ${what} (character ${at + 1}), which an HTTP header cannot carry: copy the key again from where it was issued, as plain text`;
}

function normaliseBaseUrl(raw: string, issues: Issue[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    issues.push({ path: ["baseUrl"], message: `"${raw}" is not a URL (expected e.g. https://host)` });
    return "";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    issues.push({ path: ["baseUrl"], message: `must be an http(s) URL, got ${url.protocol}` });
  }
  if (url.username || url.password || url.search || url.hash) {
    issues.push({ path: ["baseUrl"], message: "must not carry credentials, a query or a fragment" });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
