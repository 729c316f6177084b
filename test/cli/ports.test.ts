import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { listenOrExplain } from "../../cli/port-in-use.js";
import { afterTest } from "../helpers/after-test.js";
import { DEMO_KEY } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { SECRET } from "../server/helpers.js";

/** The CLI as a real process: its exit code and what it wrote to stderr. */
function skillsync(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "ignore", "pipe"],
    // A server needs a key to start with (no call is made).
    env: {
      ...process.env,
      SKILLSYNC_SERVER_SECRET: SECRET,
      SKILL_API_KEY: DEMO_KEY,
      SKILL_API_BASE_URL: "http://127.0.0.1:9",
    },
  });
  afterTest(() => child.exitCode === null && child.kill("SIGKILL"));
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, err })));
}

describe("port flags", () => {
  it.each([
    [
      ["serve", "--port", "99999"],
      '--port must be a whole number from 0 to 65535 (0: any free port), got "99999"',
    ],
    [["serve", "--port", "-1"], '--port must be a whole number from 0 to 65535 (0: any free port), got "-1"'],
    [["emulator", "stop", "--port", "65536"], '--port must be a whole number from 1 to 65535, got "65536"'],
    [["emulator", "--port", "99999"], '--port: "99999" is not an integer between 0 and 65535'],
    [
      ["worker", "--metrics-port", "70000", "--db", "postgres://127.0.0.1:1/x"],
      '--metrics-port must be a whole number from 0 to 65535 (0: any free port), got "70000"',
    ],
  ])("%j: exit 2 naming the flag and its range", async (args, said) => {
    const r = await skillsync(args);
    expect(r.err).toContain(said);
    expect(r.err).not.toContain("RangeError");
    expect(r.code).toBe(2);
  });

  it("an address that is not this machine's is exit 2 naming --host", async () => {
    const db = freshWarehouseUrl("sqlite");
    // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
    const r = await skillsync(["serve", "--host", "192.0.2.1", "--port", "0", "--db", db]);
    expect(r.err).toContain("192.0.2.1 is not an address of this machine (--host)");
    expect(r.code).toBe(2);
  });

  it("a port the user may not take is exit 2 saying which ports are, and --port 0", async () => {
    // Tests run as root here, which may take any port: the system's refusal is given as Node gives it.
    const refused = Object.assign(new Error("listen EACCES: permission denied 0.0.0.0:80"), {
      code: "EACCES",
    });
    const e = await listenOrExplain(() => Promise.reject(refused), {
      port: 80,
      host: "0.0.0.0",
      flag: "--port",
    }).catch((err: unknown) => err as { exitCode: number; message: string });
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("port 80 on 0.0.0.0 needs privileges this user does not have (--port)");
    expect(e.message).toContain("--port 0 for any free one");
  });
});
