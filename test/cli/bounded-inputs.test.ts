import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDotEnv } from "../../cli/dotenv.js";
import { readKeyFile } from "../../connectors/sheets/google-auth.js";
import { READ_LIMITS } from "../../core/bounded-read.js";
import { afterTest } from "../helpers/after-test.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

// Issue 44: every file a user names is read up to a limit, so /dev/zero, a pipe or a wrong huge
// file is refused (exit 2, naming what it was for) in a moment, never read into memory whole.
const MB = 1024 * 1024;
/** The acceptance of issue 44: exit 2 within 5 s, peak memory under 300 MB. */
const DEADLINE_MS = 5000;
const MEMORY_CEILING = 300 * MB;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillsync-bounded-"));
  afterTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A sparse file of `bytes` (no disk used): a regular file over a limit. */
function bigFile(dir: string, name: string, bytes: number): string {
  const file = join(dir, name);
  writeFileSync(file, "");
  truncateSync(file, bytes);
  return file;
}

/** The highest resident set the process has had so far (VmHWM), bytes; undefined once it is gone. */
function peakRss(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI as a process and follows its peak memory until it exits: VmHWM only grows, so the
 * last reading is the highest the process reached up to a few milliseconds before its end.
 */
async function cliProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; ms: number; peak: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  afterTest(() => child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRss(child.pid!) ?? 0);
    // A reading of /dev/zero without a bound grows by gigabytes: stopped once it has failed.
    if (peak > MEMORY_CEILING) child.kill("SIGKILL");
  }, 5);
  const limit = setTimeout(() => child.kill("SIGKILL"), 3 * DEADLINE_MS);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearInterval(poll);
  clearTimeout(limit);
  return { code, stderr, ms: performance.now() - started, peak };
}

describe("--param name=@/dev/zero (issue 44)", () => {
  it("plan refuses it with exit 2 within 5 s, naming keyword, under 300 MB", async () => {
    const db = freshWarehouseUrl("sqlite");
    const r = await cliProcess(["plan", "marketplace-search", "--param", "keyword=@/dev/zero", "--db", db]);
    console.log(
      `plan @/dev/zero: exit ${r.code} in ${Math.round(r.ms)} ms, peak RSS ${(r.peak / MB).toFixed(0)} MB`,
    );
    expect(r.stderr).toContain("invalid --param keyword:");
    expect(r.stderr).toContain("/dev/zero is longer than 16 MiB");
    expect(r.code).toBe(2);
    expect(r.ms).toBeLessThan(DEADLINE_MS);
    expect(r.peak).toBeGreaterThan(0);
    expect(r.peak).toBeLessThan(MEMORY_CEILING);
    expect(existsSync(db)).toBe(false);
  });

  it("run refuses it with exit 2 within 5 s, naming keyword, under 300 MB, having sent and written nothing", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const r = await cliProcess(["run", "marketplace-search", "--param", "keyword=@/dev/zero", "--db", db], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    console.log(
      `run @/dev/zero: exit ${r.code} in ${Math.round(r.ms)} ms, peak RSS ${(r.peak / MB).toFixed(0)} MB`,
    );
    expect(r.stderr).toContain("invalid --param keyword:");
    expect(r.code).toBe(2);
    expect(r.ms).toBeLessThan(DEADLINE_MS);
    expect(r.peak).toBeGreaterThan(0);
    expect(r.peak).toBeLessThan(MEMORY_CEILING);
    expect(emulator.ledger().totalCalls).toBe(0);
    expect(existsSync(db)).toBe(false);
  });
});

describe("files over the limits are refused with exit 2, naming what they were for", () => {
  it("a regular file of values over 16 MiB, refused by its size", async () => {
    const file = bigFile(tempDir(), "keywords.txt", READ_LIMITS.valuesFileBytes + 1);
    const r = await cli(["plan", "marketplace-search", "--param", `keyword=@${file}`]);
    expect(r.err).toContain("invalid --param keyword:");
    expect(r.err).toContain(`${file} is ${READ_LIMITS.valuesFileBytes + 1} bytes, more than 16 MiB`);
    expect(r.err).toContain("split the list");
    expect(r.code).toBe(2);
  });

  it("a file of exactly 16 MiB is read", async () => {
    const dir = tempDir();
    const file = join(dir, "keywords.txt");
    // One value, padded with blank lines to the limit.
    writeFileSync(file, `usb hub${"\n".repeat(READ_LIMITS.valuesFileBytes - 7)}`);
    const r = await cli([
      "plan",
      "marketplace-search",
      "--param",
      `keyword=@${file}`,
      "--db",
      freshWarehouseUrl("sqlite"),
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
  });

  it.each([
    ["lines", "keywords.txt", (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join("\n"), ""],
    [
      "CSV rows",
      "keywords.csv",
      (n: number) => ["kw", ...Array.from({ length: n }, (_, i) => `k${i}`)].join("\n"),
      "#kw",
    ],
  ])("more than 100,000 values (%s)", async (_kind, name, text, column) => {
    const dir = tempDir();
    const over = join(dir, name);
    writeFileSync(over, text(READ_LIMITS.values + 1));
    const r = await cli(["plan", "marketplace-search", "--param", `keyword=@${over}${column}`]);
    expect(r.err).toContain("invalid --param keyword:");
    expect(r.err).toContain("more than 100,000 values");
    expect(r.code).toBe(2);
  });

  it("100,000 values from two files together are refused; 100,000 in one file are taken", async () => {
    const dir = tempDir();
    const half = (from: number) => Array.from({ length: READ_LIMITS.values / 2 }, (_, i) => `k${from + i}`);
    writeFileSync(join(dir, "a.txt"), half(0).join("\n"));
    writeFileSync(join(dir, "b.txt"), half(READ_LIMITS.values / 2).join("\n"));
    const two = await cli([
      "plan",
      "marketplace-search",
      "--param",
      `keyword=@${join(dir, "a.txt")}`,
      "--param",
      `keyword=@${join(dir, "b.txt")}`,
      "--param",
      "keyword=one more",
    ]);
    expect(two.err).toContain("invalid --param keyword:");
    expect(two.err).toContain("its values together: more than 100,000 values");
    expect(two.code).toBe(2);
    writeFileSync(join(dir, "all.txt"), [...half(0), ...half(READ_LIMITS.values / 2)].join("\n"));
    const one = await cli([
      "plan",
      "marketplace-search",
      "--param",
      `keyword=@${join(dir, "all.txt")}`,
      "--db",
      freshWarehouseUrl("sqlite"),
    ]);
    expect(one.err).not.toContain("more than 100,000 values");
    expect(one.code).toBe(0);
  });

  it("a pipeline file over 1 MiB", async () => {
    const file = bigFile(tempDir(), "huge.yaml", READ_LIMITS.yamlFileBytes + 1);
    const r = await cli(["plan", file]);
    expect(r.err).toContain(`invalid pipeline file ${file}:`);
    expect(r.err).toContain("more than 1 MiB");
    expect(r.code).toBe(2);
  });

  it("an input file of a pipeline (input.from.file) over 16 MiB", async () => {
    const dir = tempDir();
    const yaml = readFileSync("pipelines/marketplace-search.yaml", "utf8")
      .replace("from: { param: keyword }", "from: { file: keywords.txt }")
      .replace("required: true", "required: false");
    writeFileSync(join(dir, "search.yaml"), yaml);
    bigFile(dir, "keywords.txt", READ_LIMITS.valuesFileBytes + 1);
    const r = await cli(["plan", join(dir, "search.yaml")]);
    expect(r.err).toContain(`invalid pipeline file ${join(dir, "search.yaml")}:`);
    expect(r.err).toContain("keywords.txt is 16777217 bytes, more than 16 MiB");
    expect(r.code).toBe(2);
  });

  it("--body-file /dev/zero and one over 16 MiB, with nothing sent", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const file = bigFile(tempDir(), "body.json", READ_LIMITS.valuesFileBytes + 1);
    for (const path of ["/dev/zero", file]) {
      const r = await cli(["call", "marketplace-search", "--body-file", path], env);
      expect(r.err).toContain("invalid --body-file:");
      expect(r.err).toContain(`${path} is`);
      expect(r.code).toBe(2);
    }
    expect(emulator.ledger().totalCalls).toBe(0);
  });

  it("a price file that is /dev/zero", async () => {
    const r = await cli(["plan", "marketplace-search", "--param", "keyword=a", "--prices", "/dev/zero"]);
    expect(r.err).toContain("invalid price file /dev/zero:");
    expect(r.err).toContain("longer than 1 MiB");
    expect(r.code).toBe(2);
  });
});

describe("a .env and a Google key file that are /dev/zero", () => {
  it("a .env that is a link to /dev/zero is refused, not read", () => {
    const dir = tempDir();
    symlinkSync("/dev/zero", join(dir, ".env"));
    expect(() => loadDotEnv(dir, {})).toThrow(/\.env is longer than 64 KiB/);
  });

  it("a Google key file that is /dev/zero is refused, not read", () => {
    expect(() => readKeyFile("/dev/zero")).toThrow(
      /invalid Google key file .*:\n {2}\/dev\/zero is longer than 64 KiB/,
    );
  });
});
