import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../cli/main.js";
import { signedHeaders } from "../../server/index.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { SECRET } from "./helpers.js";

const children: ChildProcess[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("skillsync serve", () => {
  it("refuses to start without a secret of at least 32 characters (exit 2)", async () => {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => {
      err += String(c);
      return true;
    });
    vi.stubEnv("SKILLSYNC_SERVER_SECRET", "too-short-secret");
    expect(await main(["serve", "--port", "0"])).toBe(2);
    expect(err).toMatch(/SKILLSYNC_SERVER_SECRET: must be set to a secret of at least 32 characters/);
    expect(err).not.toContain("too-short-secret");
    vi.stubEnv("SKILLSYNC_SERVER_SECRET", "");
    expect(await main(["serve", "--port", "0"])).toBe(2);
  });

  it("serves signed requests from the command line and stops on SIGTERM", async () => {
    const { emulator } = await emulatorWithClient();
    const child = spawn(
      process.execPath,
      [
        ...nodeEntry("cli/run.ts"),
        "serve",
        "--port",
        "0",
        "--db",
        freshWarehouseUrl("sqlite"),
        "--max-credits",
        "7",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          SKILLSYNC_SERVER_SECRET: SECRET,
          SKILL_API_BASE_URL: emulator.url,
          SKILL_API_KEY: DEMO_KEY,
        },
      },
    );
    children.push(child);
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    for (let i = 0; i < 300 && !/Press Ctrl\+C/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url, err).toBeDefined();
    expect(out).toMatch(/at most 7 credits per run/);

    const res = await fetch(`${url}/budget`, {
      headers: signedHeaders(SECRET, { method: "GET", pathWithQuery: "/budget", body: "" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { maxCreditsPerRun: number }).maxCreditsPerRun).toBe(7);
    const bad = await fetch(`${url}/budget`);
    expect(bad.status).toBe(401);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(err).toMatch(/GET \/budget 200 \d+ms/);
    expect(`${out}${err}`).not.toContain(SECRET);
    expect(`${out}${err}`).not.toContain(DEMO_KEY);
  });
});
