import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { namedVariable, readConfig } from "../../core/env-config.js";
import { ValidationError } from "../../core/errors.js";

const KEY = "sk-live-0123456789abcdef";
const SECRET = "s3rver-secret-0123456789-0123456789";
const TOKEN = "ya29.sheets-token-0123456789";
const HOOK = "https://hooks.example.com/services/T000/B000/XXXXXXXX";
const PASSWORD = "pg-pass-0123456789";

const full = {
  DATABASE_URL: `postgres://app:${PASSWORD}@db.example.com:5432/warehouse`,
  SKILLSYNC_READ_DATABASE_URL: ` postgres://reader:${PASSWORD}@db.example.com/warehouse `,
  SKILLSYNC_SQL_TIMEOUT_MS: " 2500 ",
  SKILL_API_BASE_URL: " http://127.0.0.1:8787 ",
  SKILL_API_KEY: ` ${KEY} `,
  SKILLSYNC_SHEETS_API_URL: "http://127.0.0.1:9999/",
  SKILLSYNC_SHEETS_ACCESS_TOKEN: TOKEN,
  GOOGLE_APPLICATION_CREDENTIALS: "/keys/sa.json",
  SKILLSYNC_PRICES: " prices.yaml",
  SKILLSYNC_LOG_FORMAT: " JSON ",
  SKILLSYNC_SERVER_SECRET: SECRET,
  SKILLSYNC_NOTIFY_URL: HOOK,
  SKILLSYNC_NOTIFY_BACKOFF: "50,200",
};

describe("readConfig", () => {
  it("reads every setting from the environment it is given, trimmed where it is read trimmed", () => {
    const c = readConfig(full);
    expect(c.databaseUrl).toBe(full.DATABASE_URL);
    expect(c.readDatabaseUrl).toBe(`postgres://reader:${PASSWORD}@db.example.com/warehouse`);
    expect(c.sqlTimeoutMs).toBe(2500);
    expect(c.skillApi).toMatchObject({ baseUrl: "http://127.0.0.1:8787" });
    expect(c.skillApi.apiKey).toBe(KEY);
    expect(c.sheets).toMatchObject({ rootUrl: "http://127.0.0.1:9999/", keyFile: "/keys/sa.json" });
    expect(c.sheets.accessToken).toBe(TOKEN);
    expect(c.prices).toBe(" prices.yaml");
    expect(c.logFormat).toBe("json");
    expect(c.serverSecret).toBe(SECRET);
    expect(c.notify.url).toBe(HOOK);
    expect(c.notify.backoff).toEqual({ baseMs: 50, capMs: 200 });
  });

  it("leaves unset and blank settings undefined", () => {
    const c = readConfig({
      SKILLSYNC_PRICES: "  ",
      SKILLSYNC_LOG_FORMAT: " ",
      SKILLSYNC_NOTIFY_BACKOFF: "9,1",
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.readDatabaseUrl).toBeUndefined();
    expect(c.sqlTimeoutMs).toBeUndefined();
    expect(c.skillApi.baseUrl).toBeUndefined();
    expect(c.skillApi.apiKey).toBeUndefined();
    expect(c.sheets).toEqual({ rootUrl: undefined, keyFile: undefined });
    expect(c.prices).toBeUndefined();
    expect(c.logFormat).toBeUndefined();
    expect(c.notify.url).toBeUndefined();
    expect(c.notify.backoff).toBeUndefined();
  });

  it("is frozen, its groups too", () => {
    const c = readConfig(full);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.skillApi)).toBe(true);
    expect(Object.isFrozen(c.sheets)).toBe(true);
    expect(Object.isFrozen(c.notify)).toBe(true);
    expect(() => {
      (c as { prices: string | undefined }).prices = "other.yaml";
    }).toThrow(TypeError);
  });

  it("never prints a secret: JSON, String, util.inspect, spreading and its keys", () => {
    const c = readConfig(full);
    const printed = [
      JSON.stringify(c),
      String(c),
      `${c.skillApi} ${c.sheets} ${c.notify}`,
      inspect(c, { depth: 5, showHidden: false }),
      inspect({ config: c }, { depth: 5 }),
      JSON.stringify({ ...c, ...c.skillApi, ...c.sheets, ...c.notify }),
      Object.keys(c).join(","),
    ].join("\n");
    for (const secret of [KEY, SECRET, TOKEN, HOOK, PASSWORD]) expect(printed).not.toContain(secret);
    expect(printed).toContain("[redacted]");
    // What is not secret is shown, a database URL without its password.
    expect(JSON.stringify(c)).toContain("http://127.0.0.1:8787");
    expect(JSON.stringify(c)).toContain("postgres://app:[redacted]@db.example.com:5432/warehouse");
  });

  it("says a wrong setting where it is read, not when the environment is read", () => {
    const c = readConfig({
      SKILLSYNC_SQL_TIMEOUT_MS: "5s",
      SKILLSYNC_LOG_FORMAT: "xml",
      SKILL_API_BASE_URL: "x",
    });
    expect(c.skillApi.baseUrl).toBe("x");
    expect(() => c.sqlTimeoutMs).toThrow(ValidationError);
    expect(() => c.sqlTimeoutMs).toThrow("must be a whole number of milliseconds, at least 1");
    expect(() => c.logFormat).toThrow(
      'SKILLSYNC_LOG_FORMAT: is "xml": use text or json (or unset it for text)',
    );
  });

  it("reads the process's environment by default, as it is at that moment", () => {
    const before = process.env["SKILLSYNC_PRICES"];
    try {
      process.env["SKILLSYNC_PRICES"] = "now.yaml";
      expect(readConfig().prices).toBe("now.yaml");
      process.env["SKILLSYNC_PRICES"] = "later.yaml";
      expect(readConfig().prices).toBe("later.yaml");
    } finally {
      if (before === undefined) delete process.env["SKILLSYNC_PRICES"];
      else process.env["SKILLSYNC_PRICES"] = before;
    }
  });

  it("reads a variable a pipeline file names as given", () => {
    expect(namedVariable("MY_HOOK", { MY_HOOK: " https://x " })).toBe(" https://x ");
    expect(namedVariable("MY_HOOK", {})).toBeUndefined();
  });
});
