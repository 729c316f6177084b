import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AccessError,
  AuthError,
  PlatformError,
  RateLimitError,
  RequestError,
  ResponseShapeError,
  type RetryInfo,
  ServerError,
  SkillApiError,
  SkillClient,
  type SkillClientInit,
  TransportError,
} from "../../../connectors/skill-api/index.js";
import { ValidationError } from "../../../core/errors.js";
import { closedPort, envelope, FakeServer } from "./fake-server.js";

const API_KEY = "sk-test-4f9c2a7be01d49f1a3c5";
let server: FakeServer;
const clients: SkillClient[] = [];

function client(init: SkillClientInit = {}): SkillClient {
  const c = new SkillClient({ baseUrl: server.baseUrl, apiKey: API_KEY, retryBaseDelayMs: 10, ...init });
  clients.push(c);
  return c;
}

async function failure(p: Promise<unknown>): Promise<SkillApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SkillApiError);
  return err as SkillApiError;
}

const search = { q: "solar roof tile" };

beforeEach(async () => {
  server = await FakeServer.start();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe("a successful call", () => {
  it("POSTs the validated body with the bearer key and returns data untouched", async () => {
    const data = {
      results: [{ title: "Tile", patentId: "US1", vendorOnly: { deep: [1, 2] } }],
      pagination: null,
      extraMember: "kept",
    };
    server.script({ body: envelope(data, { traceId: "abc-123", future: true }) });

    const r = await client().call("websearch-patent-search", search);

    const [req] = server.requests;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/api/skill-api/v1/skills/websearch-patent-search/run");
    expect(req?.headers["authorization"]).toBe(`Bearer ${API_KEY}`);
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req?.body ?? "")).toEqual({
      q: "solar roof tile",
      num: 10,
      page: 1,
      patents: true,
      scholar: false,
    });
    expect(r.data).toEqual(data);
    expect(r.envelope["future"]).toBe(true);
    expect(r.envelope.cost).toBe("12");
    expect(r).toMatchObject({
      slug: "websearch-patent-search",
      status: 200,
      traceId: "abc-123",
      attempts: 1,
    });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
    // Typed from schema/: results is an array of records.
    expect(r.data?.results[0]?.["vendorOnly"]).toEqual({ deep: [1, 2] });
  });

  it("keeps the connection alive between calls and honours a base URL path prefix", async () => {
    server.script({ body: envelope({ results: [] }) });
    const c = client({ baseUrl: `${server.baseUrl}/gateway/` });
    for (let i = 0; i < 6; i++) await c.call("websearch-patent-search", search);
    expect(new Set(server.requests.map((r) => r.url))).toEqual(
      new Set(["/gateway/api/skill-api/v1/skills/websearch-patent-search/run"]),
    );
    // undici frees a connection one event-loop turn after a response, so back-to-back calls may
    // alternate between two sockets; without keep-alive there would be six.
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it("returns null data, and any slug of the catalog as a plain JSON object", async () => {
    server.script({ body: envelope(null) }, { body: envelope({ anything: [1], nested: { a: null } }) });
    const c = client();
    expect((await c.call("websearch-patent-search", search)).data).toBeNull();
    const generic = await c.call("marketplace-keyword-trends", { keyword: "lamp", custom: { x: 1 } });
    expect(generic.data).toEqual({ anything: [1], nested: { a: null } });
    expect(JSON.parse(server.requests[1]?.body ?? "")).toEqual({ keyword: "lamp", custom: { x: 1 } });
  });

  it("types documented calls from the schemas", async () => {
    server.script({ body: envelope({ total: 1, data: [{ patentId: "p1", claimCount: 3 }] }) });
    const r = await client().call("patent-claims", { patentNumber: "US1" });
    const count: number | null | undefined = r.data?.data?.[0]?.claimCount;
    expect(count).toBe(3);
    // @ts-expect-error q is required by websearch-patent-search
    await expect(client().call("websearch-patent-search", { num: 10 })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe("errors", () => {
  const cases: [string, Parameters<FakeServer["script"]>[0], new (...a: never[]) => SkillApiError, object][] =
    [
      [
        "401",
        { status: 401, body: { traceId: "t401" } },
        AuthError,
        { code: "AUTH", status: 401, traceId: "t401", exitCode: 4 },
      ],
      [
        "403",
        { status: 403, body: envelope(null, { code: 403, traceId: "t403" }) },
        AccessError,
        { code: "ACCESS", exitCode: 4 },
      ],
      [
        "400",
        { status: 400, body: { msg: "q is too long", traceId: "t400" } },
        RequestError,
        { code: "REQUEST_REFUSED", status: 400, traceId: "t400" },
      ],
      ["402", { status: 402, body: "payment required" }, RequestError, { status: 402, traceId: null }],
      ["413", { status: 413 }, RequestError, { status: 413 }],
      [
        "500",
        { status: 500, body: { traceId: "t500" } },
        ServerError,
        { code: "SERVER", status: 500, traceId: "t500", maybeCharged: true },
      ],
      ["502", { status: 502, body: "<html>bad gateway</html>" }, ServerError, { status: 502 }],
      ["503", { status: 503 }, ServerError, { status: 503 }],
      ["504", { status: 504 }, ServerError, { status: 504 }],
      [
        "200 code≠0",
        { body: envelope(null, { code: 1001, msg: "quota exhausted", traceId: "tp" }) },
        PlatformError,
        { code: "PLATFORM", platformCode: 1001, platformMessage: "quota exhausted", traceId: "tp" },
      ],
      [
        "200 not JSON",
        { body: "<html>ok</html>" },
        ResponseShapeError,
        { code: "RESPONSE_SHAPE", status: 200 },
      ],
      [
        "200 not an envelope",
        { body: { code: 0, data: {} } },
        ResponseShapeError,
        { code: "RESPONSE_SHAPE" },
      ],
      [
        "200 data breaks its schema",
        { body: envelope({ results: "none" }, { traceId: "ts" }) },
        ResponseShapeError,
        { traceId: "ts" },
      ],
    ];

  it.each(cases)("%s → the typed error, sent once, never retried", async (_name, step, cls, fields) => {
    server.script(step);
    const err = await failure(client().call("websearch-patent-search", search));
    expect(err).toBeInstanceOf(cls);
    expect(err).toMatchObject({ slug: "websearch-patent-search", retryable: false, ...fields });
    expect(server.requests).toHaveLength(1);
  });

  it("says what is wrong and where in shape errors and refusals", async () => {
    server.script({ body: envelope({ results: "none" }) });
    const shape = (await failure(client().call("websearch-patent-search", search))) as ResponseShapeError;
    expect(shape.issues.map((i) => i.path)).toContainEqual(["data", "results"]);
    expect(shape.message).toContain("data.results");

    server.script({ body: { code: 0, msg: null, data: {}, time: "x", cost: "1", traceId: null } });
    const env = (await failure(client().call("websearch-patent-search", search))) as ResponseShapeError;
    expect(env.issues.map((i) => i.path[0])).toEqual(expect.arrayContaining(["ts", "time"]));

    server.script({ status: 400, body: { msg: "q is too long" } });
    expect((await failure(client().call("websearch-patent-search", search))).message).toContain(
      "q is too long",
    );
  });
});

describe("rate limits (429)", () => {
  it("waits as long as Retry-After says, then succeeds", async () => {
    server.script({ status: 429, headers: { "retry-after": "1" } }, { body: envelope({ results: [] }) });
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const r = await client({ onRetry: (i) => retries.push(i) }).call("websearch-patent-search", search);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3000);
    expect(r.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(retries).toMatchObject([{ attempt: 1, delayMs: 1000, reason: "rate-limited" }]);
    expect(retries[0]?.error).toBeInstanceOf(RateLimitError);
  });

  it("gives up after maxRateLimitRetries with the RateLimitError", async () => {
    server.script({ status: 429, headers: { "retry-after": "0" }, body: { traceId: "t429" } });
    // A high declared limit: refusals before any success would otherwise slow the pace to one call
    // every 5 s (rate-limits.test.ts tests that); here only the retries are counted.
    const err = await failure(
      client({ maxRateLimitRetries: 2, rate: 1000 }).call("websearch-patent-search", search),
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({
      status: 429,
      retryAfterMs: 0,
      traceId: "t429",
      retryable: true,
      maybeCharged: false,
    });
    expect(server.requests).toHaveLength(3);
  });

  it("backs off exponentially with jitter when Retry-After is absent, capped per wait", async () => {
    server.script(
      { status: 429 },
      { status: 429 },
      { status: 429, headers: { "retry-after": "120" } },
      { body: envelope({ results: [] }) },
    );
    const delays: number[] = [];
    const c = client({
      retryBaseDelayMs: 100,
      maxRetryDelayMs: 300,
      rate: 1000,
      random: () => 0.5,
      onRetry: (i) => delays.push(i.delayMs),
    });
    const started = Date.now();
    const r = await c.call("websearch-patent-search", search);
    // 0.5 × 100, 0.5 × 200, then Retry-After 120 s capped at 300 ms.
    expect(delays).toEqual([50, 100, 300]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(440);
    expect(r.attempts).toBe(4);
  });
});

describe("no second charge by accident", () => {
  it("does not retry a headers timeout: the request was sent", async () => {
    server.script({ delayMs: 1500, body: envelope({ results: [] }) });
    const err = await failure(client({ headersTimeoutMs: 200 }).call("websearch-patent-search", search));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ sent: true, timeout: true, retryable: false, maybeCharged: true });
    expect(err.message).toContain("200 ms");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry when the server drops the connection after receiving the request", async () => {
    server.script({ destroy: true });
    const err = await failure(client().call("websearch-patent-search", search));
    expect(err).toMatchObject({ code: "TRANSPORT", sent: true, timeout: false, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it("retries a refused connection a bounded number of times, then reports nothing was sent", async () => {
    const retries: RetryInfo[] = [];
    const c = client({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      maxConnectRetries: 2,
      onRetry: (i) => retries.push(i),
    });
    const err = await failure(c.call("websearch-patent-search", search));
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ sent: false, retryable: true, maybeCharged: false });
    expect(err.message).toContain("connection refused");
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, "connect-failed"],
      [2, "connect-failed"],
    ]);
  });

  it("an abort while waiting for the answer is reported as maybe sent, and not retried", async () => {
    server.script({ delayMs: 2000 });
    const ac = new AbortController();
    const pending = failure(client().call("websearch-patent-search", search, { signal: ac.signal }));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    expect(await pending).toMatchObject({ sent: true, code: "TRANSPORT" });
    expect(server.requests).toHaveLength(1);
  });

  it("a closed client fails fast without retrying", async () => {
    const c = client({ maxConnectRetries: 3 });
    await c.close();
    const err = await failure(c.call("websearch-patent-search", search));
    expect(err).toMatchObject({ code: "TRANSPORT", sent: false });
    expect(server.requests).toHaveLength(0);
  });
});

describe("validation before sending", () => {
  it.each([
    ["websearch-patent-search", { q: "" }, "request to websearch-patent-search"],
    ["websearch-patent-search", { q: "x", unknown: 1 }, "request to websearch-patent-search"],
    ["patent-claims", {}, "request to patent-claims"],
    ["some-other-operation", ["not", "an", "object"], "request to some-other-operation"],
    ["Not A Slug", {}, 'slug "Not A Slug"'],
  ])("%s %j → ValidationError (exit 2), nothing sent", async (slug, body, source) => {
    const err = await client()
      .call(slug, body as Record<string, unknown>)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ source, exitCode: 2, code: "VALIDATION" });
    expect((err as ValidationError).issues.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(0);
  });

  it("a body that cannot be JSON is refused before sending", async () => {
    const err = await client()
      .call("some-other-operation", { n: 10n })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("configuration", () => {
  it("names the environment variable to set when the base URL or key is missing", () => {
    let err: unknown;
    try {
      new SkillClient({}, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).exitCode).toBe(2);
    expect((err as Error).message).toContain("SKILL_API_BASE_URL");
    expect((err as Error).message).toContain("SKILL_API_KEY");
  });

  it("reads the environment and keeps the key out of printed and serialised config", () => {
    const c = new SkillClient({}, { SKILL_API_BASE_URL: "http://127.0.0.1:9/", SKILL_API_KEY: API_KEY });
    clients.push(c);
    expect(c.config.baseUrl).toBe("http://127.0.0.1:9");
    expect(c.config.apiKey).toBe(API_KEY);
    expect(Object.isFrozen(c.config)).toBe(true);
    expect(JSON.stringify(c.config)).not.toContain(API_KEY);
    expect(inspect(c, { depth: 5, showHidden: false })).not.toContain(API_KEY);
    expect(() => new SkillClient({ baseUrl: "ftp://x", apiKey: API_KEY })).toThrow(/http\(s\)/);
  });
});

describe("the API key never leaks", () => {
  it("is absent from every error's message, stack, JSON and inspection, even when the server echoes it", async () => {
    const echo = `your key ${API_KEY} / Bearer ${API_KEY}`;
    const steps = [
      { status: 401, body: { msg: echo } },
      { status: 400, body: { msg: echo } },
      { status: 418, body: echo },
      { body: envelope(null, { code: 7, msg: echo }) },
      { body: echo },
      { body: envelope({ results: echo }) },
      { destroy: true },
    ];
    const errors: unknown[] = [];
    for (const step of steps) {
      server.script(step);
      errors.push(
        await client()
          .call("websearch-patent-search", search)
          .catch((e: unknown) => e),
      );
    }
    errors.push(
      await client()
        // @ts-expect-error replaceByRelated is "0" | "1": the bad value is the point
        .call("patent-claims", { patentNumber: API_KEY, replaceByRelated: 5 })
        .catch((e: unknown) => e),
    );
    errors.push(
      await client({ baseUrl: `http://127.0.0.1:${await closedPort()}`, maxConnectRetries: 0 })
        .call("websearch-patent-search", search)
        .catch((e: unknown) => e),
    );
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    for (const e of errors as Error[]) {
      for (const text of [e.message, e.stack ?? "", JSON.stringify(e), inspect(e, { depth: 6 })]) {
        expect(text).not.toContain(API_KEY);
      }
    }
  });
});
