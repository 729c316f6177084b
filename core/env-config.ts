import { hostname } from "node:os";
import { inspect } from "node:util";
import { ValidationError } from "./errors.js";

/**
 * The environment, read in one place into one frozen, typed configuration (as pg-boss's
 * `getConfig()`): every variable skillsync reads is named here, with its default and its check.
 * Flags win over it where a command has one; `.env` is loaded into the environment before
 * (cli/dotenv.ts). It is read when asked, not kept: a test that sets a variable, or a caller that
 * passes an environment of its own, is read as it is at that moment.
 *
 * A setting that is wrong throws its error where it is used, not here — a command that does not use
 * it is not stopped by it. Secrets (the API key, the server secret, the Sheets token, the webhook
 * URL, the SMTP URL, a database URL's password) are never printed: not by `JSON.stringify`, `String`,
 * `console.log` nor `util.inspect`, and they are not enumerable.
 *
 * @example readConfig({ SKILL_API_BASE_URL: "http://127.0.0.1:8787" }).skillApi.baseUrl // "http://127.0.0.1:8787"
 */
export interface Config {
  /** DATABASE_URL as given (`--db` wins); unset: ./skillsync.db. */
  readonly databaseUrl: string | undefined;
  /** SKILLSYNC_READ_DATABASE_URL: the reader login of Postgres read paths (`--read-db` wins). */
  readonly readDatabaseUrl: string | undefined;
  /** SKILLSYNC_SQL_TIMEOUT_MS: a read-only statement's time limit; undefined: the default. Throws when not a whole number ≥ 1. */
  readonly sqlTimeoutMs: number | undefined;
  readonly skillApi: {
    /** SKILL_API_BASE_URL, trimmed (`--base-url` wins). */
    readonly baseUrl: string | undefined;
    /** SKILL_API_KEY, trimmed. A secret. */
    readonly apiKey: string | undefined;
  };
  readonly sheets: {
    /** SKILLSYNC_SHEETS_API_URL: the Sheets API's root (a local fake in tests). */
    readonly rootUrl: string | undefined;
    /** SKILLSYNC_SHEETS_ACCESS_TOKEN: a ready OAuth token. A secret. */
    readonly accessToken: string | undefined;
    /** GOOGLE_APPLICATION_CREDENTIALS: a service account key file. */
    readonly keyFile: string | undefined;
  };
  /** SKILLSYNC_PRICES: a price file (`--prices` wins), as given; undefined when blank. */
  readonly prices: string | undefined;
  /** SKILLSYNC_LOG_FORMAT: text or json (`--log-format` wins). Throws when it is neither. */
  readonly logFormat: "text" | "json" | undefined;
  /** SKILLSYNC_SERVER_SECRET: what `serve` checks request signatures with. A secret. */
  readonly serverSecret: string | undefined;
  readonly notify: {
    /** SKILLSYNC_NOTIFY_URL: the webhook told of events (`--notify` wins). A secret. */
    readonly url: string | undefined;
    /** SKILLSYNC_NOTIFY_BACKOFF=base,cap (ms): a shorter backoff for tests; undefined: the defaults. */
    readonly backoff: { readonly baseMs: number; readonly capMs: number } | undefined;
  };
  readonly smtp: {
    /** SKILLSYNC_SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…`. A secret. */
    readonly url: string | undefined;
    /** SKILLSYNC_SMTP_FROM: the sender of alert e-mails; default `skillsync@<this host's name>`. */
    readonly from: string;
  };
}

type Values = Record<string, unknown>;

const REDACTED = "[redacted]";

/** A database URL as it may be shown: its password replaced. */
const shownUrl = (url: string): string =>
  url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, `$1${REDACTED}@`);

/**
 * A frozen group of settings: `open` members as they are, `secret` members not enumerable and shown
 * as [redacted], `checked` members read (and checked) when asked, `shown` members shown as given.
 */
function group<T>(
  open: Values,
  o: { secret?: Values; checked?: Record<string, () => unknown>; shown?: Record<string, string> } = {},
): T {
  const out: Values = { ...open };
  const view: Values = { ...open };
  for (const [name, value] of Object.entries(o.secret ?? {})) {
    Object.defineProperty(out, name, { value, enumerable: false });
    if (value !== undefined) view[name] = o.shown?.[name] ?? REDACTED;
  }
  for (const [name, get] of Object.entries(o.checked ?? {})) {
    Object.defineProperty(out, name, { get, enumerable: false });
  }
  const shown = () => view;
  Object.defineProperties(out, {
    toJSON: { value: shown },
    toString: { value: () => JSON.stringify(view) },
    [inspect.custom]: { value: () => view },
  });
  return Object.freeze(out) as T;
}

/** A variable's value, or undefined when it is unset or only blanks; `trim`: without its blanks. */
function setting(env: NodeJS.ProcessEnv, name: string, trim = true): string | undefined {
  const value = env[name];
  if (value === undefined || value.trim() === "") return undefined;
  return trim ? value.trim() : value;
}

function sqlTimeoutMs(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(value.trim()))
    throw new ValidationError("SKILLSYNC_SQL_TIMEOUT_MS", [
      { path: [], message: "must be a whole number of milliseconds, at least 1" },
    ]);
  return Number(value.trim());
}

function logFormat(value: string | undefined): "text" | "json" | undefined {
  const chosen = value?.trim();
  if (!chosen) return undefined;
  if (chosen.toLowerCase() === "text" || chosen.toLowerCase() === "json")
    return chosen.toLowerCase() as "text" | "json";
  throw new ValidationError("environment", [
    { path: ["SKILLSYNC_LOG_FORMAT"], message: `is "${chosen}": use text or json (or unset it for text)` },
  ]);
}

function backoff(value: string | undefined): Config["notify"]["backoff"] {
  const [base, cap] = (value ?? "").split(",").map(Number);
  return base && cap && base > 0 && cap >= base ? { baseMs: base, capMs: cap } : undefined;
}

/**
 * Reads the environment (by default the process's) into the configuration. Reads nothing else and
 * throws nothing: see `Config` for when a wrong setting is said.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env["DATABASE_URL"];
  const readDatabaseUrl = setting(env, "SKILLSYNC_READ_DATABASE_URL");
  const urls = { databaseUrl, readDatabaseUrl };
  return group<Config>(
    {
      skillApi: group(
        { baseUrl: env["SKILL_API_BASE_URL"]?.trim() },
        { secret: { apiKey: env["SKILL_API_KEY"]?.trim() } },
      ),
      sheets: group(
        {
          rootUrl: setting(env, "SKILLSYNC_SHEETS_API_URL"),
          keyFile: setting(env, "GOOGLE_APPLICATION_CREDENTIALS"),
        },
        { secret: { accessToken: setting(env, "SKILLSYNC_SHEETS_ACCESS_TOKEN") } },
      ),
      prices: setting(env, "SKILLSYNC_PRICES", false),
      notify: group(
        { backoff: backoff(env["SKILLSYNC_NOTIFY_BACKOFF"]) },
        { secret: { url: env["SKILLSYNC_NOTIFY_URL"] || undefined } },
      ),
      smtp: group(
        { from: setting(env, "SKILLSYNC_SMTP_FROM") ?? `skillsync@${hostname()}` },
        { secret: { url: setting(env, "SKILLSYNC_SMTP_URL") } },
      ),
    },
    {
      secret: { ...urls, serverSecret: env["SKILLSYNC_SERVER_SECRET"] },
      shown: Object.fromEntries(
        Object.entries(urls).flatMap(([k, v]) => (v === undefined ? [] : [[k, shownUrl(v)]])),
      ),
      checked: {
        sqlTimeoutMs: () => sqlTimeoutMs(env["SKILLSYNC_SQL_TIMEOUT_MS"]),
        logFormat: () => logFormat(env["SKILLSYNC_LOG_FORMAT"]),
      },
    },
  );
}

/**
 * A variable a pipeline file names (`url: env:NAME` or `${NAME}`), as given: the user chose it, so
 * it is not a setting of ours.
 */
export function namedVariable(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[name];
}
