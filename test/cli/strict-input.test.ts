import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compilePath } from "../../engine/define/member-path.js";
import { secretProblem } from "../../server/secret-strength.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { tempDir } from "../helpers/temp-dir.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startTestServer } from "../server/helpers.js";

// Issue 20's smaller items: each is a usage error (exit 2) with a clear line, and nothing is sent.
const dir = () => tempDir("strict");

describe("strict input (exit 2, nothing sent)", () => {
  it.each([
    ["an empty required value", ["--param", "keyword="], /keyword: value is empty/],
    ["a whitespace value", ["--param", "keyword=   "], /keyword: value is empty/],
    ["one empty value among good ones", ["--param", "keyword=a", "--param", "keyword="], /value is empty/],
    ["a NUL byte", ["--param", "keyword=a\u0000b"], /NUL byte/],
    ["a 1,001-character keyword", ["--param", `keyword=${"k".repeat(1001)}`], /at most 1000 characters/],
    ["--max-credits ''", ["--param", "keyword=a", "--max-credits", ""], /--max-credits must be a number/],
    ["--max-credits ' '", ["--param", "keyword=a", "--max-credits", " "], /--max-credits must be a number/],
    [
      "--max-credits 0x10",
      ["--param", "keyword=a", "--max-credits", "0x10"],
      /--max-credits must be a number/,
    ],
    ["--max-credits 1e3", ["--param", "keyword=a", "--max-credits", "1e3"], /--max-credits must be a number/],
    [
      "--concurrency 2.5",
      ["--param", "keyword=a", "--concurrency", "2.5"],
      /--concurrency must be a whole number/,
    ],
    [
      "--db postgres://%zz",
      ["--param", "keyword=a", "--db", "postgres://%zz/db"],
      /host "%zz" is not a host name/,
    ],
    [
      "--db with a bad escape",
      ["--param", "keyword=a", "--db", "postgres://u:%zz@127.0.0.1/db"],
      /password has a percent escape/,
    ],
  ])("run marketplace-search with %s", async (_name, args, message) => {
    const { emulator } = await emulatorWithClient();
    const db = args.includes("--db") ? [] : ["--db", freshWarehouseUrl("sqlite")];
    const r = await cli(["run", "marketplace-search", ...args, ...db], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(emulator.ledger().totalCalls).toBe(0);
  });

  it("an empty @file for a required param", async () => {
    const file = join(dir(), "empty.txt");
    writeFileSync(file, "\n\n");
    const r = await cli([
      "plan",
      "marketplace-search",
      "--param",
      `keyword=@${file}`,
      "--db",
      freshWarehouseUrl("sqlite"),
    ]);
    expect(r.err).toMatch(/keyword: is required, but no value was given/);
    expect(r.code).toBe(2);
  });

  it("a pipeline path that is a folder", async () => {
    const folder = dir();
    const r = await cli(["plan", folder, "--db", freshWarehouseUrl("sqlite")]);
    expect(r.err).toMatch(/is a folder; give a pipeline file/);
    expect(r.code).toBe(2);
  });

  it("member paths that name prototype members", async () => {
    for (const path of ["__proto__", "data.constructor", "toString", "a.__proto__.b"]) {
      const d = dir();
      const file = join(d, "p.yaml");
      writeFileSync(
        file,
        `name: proto\nskill: marketplace-search\nrequest: { keyword: a }\nrecords:\n  path: ${path}\n  table: proto_rows\n`,
      );
      const r = await cli(["plan", file, "--db", freshWarehouseUrl("sqlite")]);
      expect(r.err, path).toMatch(/records\.path: must not name a prototype member/);
      expect(r.code).toBe(2);
    }
    // And a path never reads a prototype, whatever it names.
    expect(compilePath("constructor")({})).toBeUndefined();
    expect(compilePath("a.__proto__")({ a: {} })).toBeUndefined();
    expect(compilePath("a.b")({ a: { b: 1 } })).toBe(1);
  });

  it("server secrets need real entropy", async () => {
    for (const weak of [
      " ".repeat(32),
      "a".repeat(40),
      "ab".repeat(20),
      "abcdefghij".repeat(4),
      ` ${"0123456789abcdef".repeat(2)}`,
    ]) {
      expect(secretProblem(weak), JSON.stringify(weak)).toBeDefined();
      const r = await cli(["serve", "--port", "0"], { SKILLSYNC_SERVER_SECRET: weak });
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /SKILLSYNC_SERVER_SECRET: (is only whitespace|has only|repeats|starts or ends|is too predictable)/,
      );
    }
    expect(secretProblem("0123456789abcdef0123456789abcdef")).toMatch(/repeats a pattern of 16/);
    for (let i = 0; i < 200; i++) {
      const good = [...crypto.getRandomValues(new Uint8Array(16))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
      expect(secretProblem(good), good).toBeUndefined();
    }
    expect(secretProblem("test-server-secret-0123456789abcdef-XYZ")).toBeUndefined();
  });

  it("the server refuses empty values of a required param (400, nothing queued)", async () => {
    const t = await startTestServer("sqlite");
    for (const keyword of [[""], ["  "], "", ["a", ""]]) {
      const r = await t.call("POST", "/runs", { pipeline: "marketplace-search", params: { keyword } });
      expect(r.status, JSON.stringify(keyword)).toBe(400);
      expect(r.text).toMatch(/value is empty/);
    }
    expect(t.emulator.ledger().totalCalls).toBe(0);
  });
});
