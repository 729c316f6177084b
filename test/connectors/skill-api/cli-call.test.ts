import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { parseJsonInput } from "../../../cli/json-input.js";
import { main } from "../../../cli/main.js";
import { envelope, FakeServer } from "./fake-server.js";

const API_KEY = "sk-cli-test-93b1d0c7e2a84f55";
let server: FakeServer;
let dir: string;

/** Runs the CLI in-process and captures what it prints. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    const code = await main(args);
    return { code, out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillsync-call-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await FakeServer.start();
  vi.stubEnv("SKILL_API_KEY", API_KEY);
  vi.stubEnv("SKILL_API_BASE_URL", server.baseUrl);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

describe("skillsync call", () => {
  it("prints the envelope's data as JSON and exits 0", async () => {
    const data = { results: [{ title: "Tile", extra: true }], summary: null };
    server.script({ body: envelope(data) });
    const r = await run("call", "websearch-patent-search", "--body", '{"q":"solar tile","num":20}');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(data);
    expect(JSON.parse(server.requests[0]?.body ?? "")).toMatchObject({ q: "solar tile", num: 20, page: 1 });
  });

  it("reads --body-file and honours --base-url over the environment", async () => {
    const file = join(dir, "body.json");
    await writeFile(file, '{\n  "patentNumber": "US1,US2"\n}\n');
    server.script({ body: envelope({ total: 2, data: [] }) });
    vi.stubEnv("SKILL_API_BASE_URL", "http://127.0.0.1:9");
    const r = await run("call", "patent-claims", "--body-file", file, "--base-url", server.baseUrl);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ total: 2, data: [] });
    expect(server.requests[0]?.url).toBe("/api/skill-api/v1/skills/patent-claims/run");
  });

  it("exits 2 and says where the JSON broke, sending nothing", async () => {
    const inline = await run("call", "websearch-patent-search", "--body", '{"q": }');
    expect(inline.code).toBe(2);
    expect(inline.err).toContain("--body:1:7: not valid JSON");

    const file = join(dir, "broken.json");
    await writeFile(file, '{\n  "q": "x",\n  "num": 10,\n}\n');
    const fromFile = await run("call", "websearch-patent-search", "--body-file", file);
    expect(fromFile.code).toBe(2);
    expect(fromFile.err).toContain(`${file}:4:1: not valid JSON`);
    expect(server.requests).toHaveLength(0);
  });

  it("exits 2 on a request that fails validation, naming the member, sending nothing", async () => {
    const r = await run("call", "websearch-patent-search", "--body", '{"q":"x","num":5}');
    expect(r.code).toBe(2);
    expect(r.err).toContain("invalid request to websearch-patent-search");
    expect(r.err).toContain("num:");
    expect(r.err).not.toContain("    at "); // no stack without --verbose
    expect(server.requests).toHaveLength(0);
  });

  it("exits 2 on bad usage and missing configuration", async () => {
    expect((await run("call", "websearch-patent-search")).code).toBe(2);
    expect((await run("call", "x", "--body", "{}", "--body-file", "f.json")).code).toBe(2);
    vi.stubEnv("SKILL_API_KEY", "");
    const noKey = await run("call", "websearch-patent-search", "--body", '{"q":"x"}');
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain("SKILL_API_KEY");
  });

  it.each([
    [401, 4],
    [403, 4],
    [400, 1],
    [500, 1],
  ])("exits with the right code on HTTP %i", async (status, code) => {
    server.script({ status, body: { msg: "no" } });
    const r = await run("call", "websearch-patent-search", "--body", '{"q":"x"}');
    expect(r.code).toBe(code);
    expect(r.err).toContain(`HTTP ${status}`);
    expect(r.err).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("exits 1 on a platform error and reports rate-limit retries on stderr", async () => {
    server.script(
      { status: 429, headers: { "retry-after": "0" } },
      { body: envelope(null, { code: 5, msg: "bad" }) },
    );
    const r = await run("call", "some-catalog-operation", "--body", "{}");
    expect(r.code).toBe(1);
    expect(r.err).toContain("rate limited; retrying in 0.0 s (attempt 2)");
    expect(r.err).toContain("platform error 5: bad");
  });
});

describe("parseJsonInput", () => {
  it.each([
    ['{"a":tru}', "x:1:9: not valid JSON: Unexpected token '}'"],
    ['{"a":}', "x:1:6: not valid JSON: Unexpected token '}'"],
    ['{"a":1', "x:1:7: not valid JSON: Expected ',' or '}' after property value"],
    ["[1,\n 2 3]", "x:2:4: not valid JSON: Expected ',' or ']' after array element"],
    ["", "x:1:1: not valid JSON: Unexpected end of JSON input"],
  ])("%j → %s", (text, message) => {
    expect(() => parseJsonInput(text, "x")).toThrow(message);
  });

  it("returns the parsed value", () => {
    expect(parseJsonInput('{"a":[1,null]}', "x")).toEqual({ a: [1, null] });
  });
});
