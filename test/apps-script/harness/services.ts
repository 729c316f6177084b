import { createHmac, randomUUID } from "node:crypto";
import { format } from "node:util";
import { type Backend, FetchFailure } from "./backend-client.js";
import type { FakeEnv } from "./sheets.js";

/** PropertiesService's store, with its limits: 9 KB a value, 500 KB a store. */
export class FakeProperties {
  readonly map = new Map<string, string>();

  constructor(private readonly env: FakeEnv) {}

  private size(): number {
    let n = 0;
    for (const [k, v] of this.map) n += k.length + v.length;
    return n;
  }

  getProperty(key: string): string | null {
    this.env.spend(1);
    return this.map.get(key) ?? null;
  }
  getProperties(): Record<string, string> {
    this.env.spend(1);
    return Object.fromEntries(this.map);
  }
  getKeys(): string[] {
    this.env.spend(1);
    return [...this.map.keys()];
  }
  setProperty(key: string, value: string): this {
    this.env.spend(1);
    const text = String(value);
    if (Buffer.byteLength(text) > 9 * 1024) throw new Error("Exception: Argument too large: value");
    const before = this.map.get(key);
    this.map.set(key, text);
    if (this.size() > 500 * 1024) {
      if (before === undefined) this.map.delete(key);
      else this.map.set(key, before);
      throw new Error("Exception: You have exceeded the property storage quota.");
    }
    return this;
  }
  setProperties(values: Record<string, string>, deleteAllOthers = false): this {
    if (deleteAllOthers) this.map.clear();
    for (const [k, v] of Object.entries(values)) this.setProperty(k, v);
    return this;
  }
  deleteProperty(key: string): this {
    this.env.spend(1);
    this.map.delete(key);
    return this;
  }
  deleteAllProperties(): this {
    this.map.clear();
    return this;
  }
}

/**
 * LockService's document lock: held by one execution at a time and released when that execution
 * ends. tryLock waits (simulated) for its timeout before giving up.
 */
export class FakeDocumentLock {
  owner: number | null = null;

  handle(env: FakeEnv, current: () => number) {
    const lock = this;
    return {
      tryLock(timeoutMs: number): boolean {
        env.spend(1);
        if (lock.owner === null || lock.owner === current()) {
          lock.owner = current();
          return true;
        }
        env.spend(timeoutMs);
        return false;
      },
      waitLock(timeoutMs: number): void {
        if (!this.tryLock(timeoutMs))
          throw new Error("Exception: Lock timeout: another process was holding the lock for too long.");
      },
      hasLock(): boolean {
        return lock.owner === current();
      },
      releaseLock(): void {
        if (lock.owner === current()) lock.owner = null;
      },
    };
  }
}

export interface FakeTrigger {
  uid: string;
  handler: string;
  dueAt: number;
  fired: boolean;
  deleted: boolean;
  /** A recurring trigger (everyHours): due again this long after each firing. */
  everyMs?: number;
}

/** ScriptApp's time-driven triggers, recorded so the test can fire them. */
export function fakeScriptApp(
  env: FakeEnv,
  triggers: FakeTrigger[],
  now: () => number,
  o: { refuse: boolean },
) {
  const view = (t: FakeTrigger) => ({
    getHandlerFunction: () => t.handler,
    getUniqueId: () => t.uid,
    getEventType: () => "CLOCK",
    __trigger: t,
  });
  return {
    EventType: { CLOCK: "CLOCK" },
    newTrigger(handler: string) {
      return {
        timeBased() {
          let dueAt = Number.NaN;
          let everyMs: number | undefined;
          const builder = {
            after(ms: number) {
              dueAt = now() + ms;
              return builder;
            },
            everyHours(n: number) {
              // Apps Script takes these intervals only.
              if (![1, 2, 4, 6, 8, 12].includes(n))
                throw new Error("Exception: The value passed to everyHours must be 1, 2, 4, 6, 8 or 12.");
              everyMs = n * 3600_000;
              dueAt = now() + everyMs;
              return builder;
            },
            create() {
              env.spend(50);
              if (o.refuse)
                throw new Error(
                  "Exception: This script has too many triggers. Triggers must be deleted from the script before more can be added.",
                );
              if (triggers.filter((t) => !t.deleted).length >= 20)
                throw new Error("Exception: This script has too many triggers.");
              if (Number.isNaN(dueAt))
                throw new Error("Exception: a time-based trigger needs after(), at() or every…()");
              const t: FakeTrigger = {
                uid: randomUUID(),
                handler,
                dueAt,
                fired: false,
                deleted: false,
                ...(everyMs === undefined ? {} : { everyMs }),
              };
              triggers.push(t);
              return view(t);
            },
          };
          return builder;
        },
      };
    },
    getProjectTriggers() {
      env.spend(10);
      return triggers.filter((t) => !t.deleted).map(view);
    },
    deleteTrigger(t: { __trigger: FakeTrigger }) {
      env.spend(10);
      t.__trigger.deleted = true;
    },
  };
}

/** Utilities: HMAC with Apps Script's signed bytes, UUIDs, sleep on the simulated clock, formatDate. */
export function fakeUtilities(env: FakeEnv) {
  const Charset = { UTF_8: "UTF_8", US_ASCII: "US_ASCII" };
  return {
    Charset,
    computeHmacSha256Signature(value: unknown, key: unknown, charset?: string): number[] {
      env.spend(1);
      if (typeof value !== "string" || typeof key !== "string")
        throw new Error("Exception: this fake takes strings only");
      const encoding = charset === Charset.US_ASCII ? "latin1" : "utf8";
      const digest = createHmac("sha256", Buffer.from(key, encoding))
        .update(Buffer.from(value, encoding))
        .digest();
      // Java bytes: -128..127.
      return [...digest].map((b) => (b > 127 ? b - 256 : b));
    },
    getUuid: () => randomUUID(),
    sleep(ms: number) {
      env.spend(ms);
    },
    formatDate(date: Date, timeZone: string, pattern: string): string {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat("en-GB", {
          timeZone,
          year: "numeric",
          month: "2-digit",
          day: "2-digit",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit",
          hourCycle: "h23",
        })
          .formatToParts(date)
          .map((p) => [p.type, p.value]),
      );
      return pattern.replace(/yyyy|MM|dd|HH|mm|ss/g, (t) => {
        const key = { yyyy: "year", MM: "month", dd: "day", HH: "hour", mm: "minute", ss: "second" }[t]!;
        return parts[key] ?? t;
      });
    },
  };
}

/** Logger and console: every line the script logs, kept for the test to inspect. */
export function fakeLogging(lines: string[]) {
  const capture =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push(`${level} ${format(...args)}`);
    };
  return {
    Logger: {
      log(...args: unknown[]) {
        capture("log")(...args);
        return this;
      },
      getLog: () => lines.join("\n"),
    },
    console: {
      log: capture("log"),
      info: capture("info"),
      warn: capture("warn"),
      error: capture("error"),
      time: () => {},
      timeEnd: () => {},
    },
  };
}

export interface FetchOptions {
  /** Simulated time one fetch takes besides the real round trip. */
  fetchMs: number;
  /** Answers larger than this fail (Apps Script: 50 MB). */
  responseLimit: number;
  /** urlFetchWhitelist prefixes; none: every URL may be fetched (a test deployment). */
  whitelist: string[] | null;
}

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** UrlFetchApp over the backend's synchronous fetch, checking options the way Apps Script does. */
export function fakeUrlFetchApp(
  env: FakeEnv,
  backend: Backend,
  o: FetchOptions,
  sent: SentRequest[],
  beforeFetch: (r: SentRequest) => void,
) {
  return {
    fetch(url: string, params: Record<string, unknown> = {}) {
      env.spend(1);
      if (typeof url !== "string" || !/^https?:\/\//.test(url))
        throw new Error(`Exception: Invalid argument: ${url}`);
      if (url.length > 2082) throw new Error("Exception: Limit Exceeded: URLFetch URL Length.");
      if (o.whitelist && !o.whitelist.some((p) => url.startsWith(p))) {
        throw new Error(
          `Exception: Request to ${url} is not allowed: add it to urlFetchWhitelist (allowlist) in the manifest.`,
        );
      }
      const known = new Set([
        "method",
        "headers",
        "payload",
        "contentType",
        "muteHttpExceptions",
        "followRedirects",
        "validateHttpsCertificates",
        "escaping",
      ]);
      for (const k of Object.keys(params))
        if (!known.has(k)) throw new Error(`Exception: Unknown fetch option ${k}`);
      const method = String(params["method"] ?? "get").toUpperCase();
      const headers: Record<string, string> = {
        "user-agent": "Mozilla/5.0 (compatible; Google-Apps-Script)",
      };
      for (const [k, v] of Object.entries((params["headers"] as Record<string, string> | undefined) ?? {}))
        headers[k] = String(v);
      const payload = params["payload"];
      if (payload !== undefined && typeof payload !== "string")
        throw new Error("Exception: this fake sends string payloads only");
      if (params["contentType"]) headers["content-type"] = String(params["contentType"]);
      const req: SentRequest = { method, url, headers, body: payload ?? "" };
      sent.push(req);
      beforeFetch(req);
      env.spend(o.fetchMs);
      let res: ReturnType<Backend["fetchSync"]>;
      try {
        res = backend.fetchSync(
          { url, method, headers, ...(payload === undefined ? {} : { body: payload }) },
          o.responseLimit,
        );
      } catch (err) {
        if (err instanceof FetchFailure && err.kind === "too-large")
          throw new Error(`Exception: ${err.message}`);
        throw new Error(
          `Exception: Address unavailable: ${url} (${err instanceof Error ? err.message : String(err)})`,
        );
      }
      const text = res.body.toString("utf8");
      if (!params["muteHttpExceptions"] && res.status >= 400) {
        throw new Error(
          `Exception: Request failed for ${url} returned code ${res.status}. Truncated server response: ${text.slice(0, 100)}`,
        );
      }
      return {
        getResponseCode: () => res.status,
        getContentText: () => text,
        getHeaders: () => res.headers,
        getAllHeaders: () => res.headers,
      };
    },
  };
}
