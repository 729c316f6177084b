import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { afterTest } from "../../helpers/after-test.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { nodeEntry } from "../../helpers/node-entry.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

/** `skillsync run` as a real process with this key: its exit code and stderr. */
function runWithKey(key: string, baseUrl: string): Promise<{ code: number | null; err: string }> {
  const args = [
    "run",
    "marketplace-search",
    "--param",
    "keyword=usb hub",
    "--db",
    freshWarehouseUrl("sqlite"),
  ];
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, SKILL_API_KEY: key, SKILL_API_BASE_URL: baseUrl },
  });
  afterTest(() => child.exitCode === null && child.kill("SIGKILL"));
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, err })));
}

describe("an API key an HTTP header cannot carry", () => {
  it.each([
    [
      "outside ASCII, within Latin-1 (once sent as such, and refused with 401)",
      "sk-kéy-secret-4242",
      "a character outside ASCII (character 5)",
    ],
    [
      "outside Latin-1 (once retried as a connection failure)",
      "sk-key-€-secret-4242",
      "a character outside ASCII (character 8)",
    ],
    ["with a control character", "sk-key-\u0001secret-4242", "a control character (character 8)"],
    ["with a line break inside", "sk-key\nsecret-4242", "whitespace (character 7)"],
  ])("%s: exit 2 naming SKILL_API_KEY before any call, the key never printed", async (_, key, said) => {
    const { emulator } = await emulatorWithClient();
    const r = await runWithKey(key, emulator.url);
    expect(r.err).toContain(`the API key in SKILL_API_KEY contains ${said}`);
    expect(r.err).toContain("which an HTTP header cannot carry");
    expect(r.code).toBe(2);
    expect(emulator.ledger().totalCalls).toBe(0);
    for (const part of key.split(/[^A-Za-z0-9]+/).filter((p) => p.length >= 4))
      expect(r.err).not.toContain(part);
  });
});
