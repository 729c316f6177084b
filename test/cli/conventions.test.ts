import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDotEnv } from "../../cli/dotenv.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { tempDir } from "../helpers/temp-dir.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

const conventionsDir = () => tempDir("conventions");
const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

describe("command-line conventions", () => {
  it("-V and --version print the version", async () => {
    for (const flag of ["-V", "--version"]) {
      const r = await cli([flag]);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(version);
    }
  });

  it("--quiet keeps results on stdout and drops progress and notes from stderr", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = (keyword: string) => [
      "run",
      "marketplace-search",
      "--db",
      freshWarehouseUrl("sqlite"),
      "--param",
      `keyword=${keyword}`,
    ];
    const loud = await cli(args("usb hub"), env);
    expect(loud.code).toBe(0);
    expect(loud.err).toMatch(/call\(s\) planned/);
    const quiet = await cli(["--quiet", ...args("desk mat")], env);
    expect(quiet.code).toBe(0);
    expect(quiet.err).toBe("");
    expect(quiet.out).toMatch(/^run r\S+: succeeded$/m);
    // Errors still reach stderr.
    const failed = await cli(["-q", "run", "no-such-pipeline", "--db", freshWarehouseUrl("sqlite")], env);
    expect(failed.code).not.toBe(0);
    expect(failed.err).toMatch(/no-such-pipeline/);
  });
});

describe(".env in the working folder", () => {
  it("fills unset variables only, and says which names it set (never the values)", () => {
    const dir = conventionsDir();
    writeFileSync(
      join(dir, ".env"),
      "# settings\nSKILL_API_KEY=sk-from-dotenv-0001\nSKILL_API_BASE_URL='http://127.0.0.1:9'\n",
    );
    const env: NodeJS.ProcessEnv = { SKILL_API_BASE_URL: "http://from-the-shell" };
    expect(loadDotEnv(dir, env)).toEqual(["SKILL_API_KEY"]);
    expect(env).toEqual({
      SKILL_API_KEY: "sk-from-dotenv-0001",
      SKILL_API_BASE_URL: "http://from-the-shell",
    });
    expect(loadDotEnv(conventionsDir(), {})).toEqual([]);
  });

  it("refuses a .env too big to be a settings file, naming it", () => {
    const dir = conventionsDir();
    writeFileSync(join(dir, ".env"), `A=${"x".repeat(70_000)}\n`);
    expect(() => loadDotEnv(dir, {})).toThrow(/\.env.*is 70003 bytes/);
  });

  it("a real skillsync process started in the folder uses it, and prints no value from it", async () => {
    const { emulator } = await emulatorWithClient();
    const dir = conventionsDir();
    writeFileSync(join(dir, ".env"), `SKILL_API_BASE_URL=${emulator.url}\nSKILL_API_KEY=${DEMO_KEY}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "" };
    delete env["SKILL_API_BASE_URL"];
    delete env["SKILL_API_KEY"];
    const child = spawn(
      process.execPath,
      nodeEntry("cli/run.ts", "call", "marketplace-search", "--body", '{"keyword":"dotenv"}'),
      { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect({ code, err }).toMatchObject({ code: 0 });
    expect(emulator.ledger().totalCalls).toBe(1);
    expect(out + err).not.toContain(DEMO_KEY);
  });
});
