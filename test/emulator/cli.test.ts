import { describe, expect, it } from "vitest";
import { emulatorOptionsFromFlags } from "../../cli/commands/emulator.js";
import { DEMO_KEY, type LedgerSnapshot } from "../../emulator/index.js";
import { runCli } from "./cli-process.js";

describe("skillsync emulator", { timeout: 90_000 }, () => {
  it("prints the base URL and the demo key, serves calls with the flags' faults, and stops cleanly on SIGTERM", async () => {
    const cli = runCli(["emulator", "--port", "0", "--latency", "30", "--report-pending-polls", "0"]);
    const out = await cli.waitFor(/Press Ctrl\+C/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(out).toContain(`demo key: ${DEMO_KEY}`);
    const t = performance.now();
    const res = await fetch(`${url}/api/skill-api/v1/skills/marketplace-search/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ keyword: "lamp" }),
    });
    expect(res.status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(25);
    const ledger = (await (await fetch(`${url}/__emulator/ledger`)).json()) as LedgerSnapshot;
    expect(ledger.totalCalls).toBe(1);
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
    expect(cli.output().out).toContain("emulator stopped on SIGTERM after 1 calls, 1 credits");
  });

  it("never prints keys given with --key", async () => {
    const cli = runCli(["emulator", "--port", "0", "--key", "sk-private-abcdef-123"]);
    const out = await cli.waitFor(/Press Ctrl\+C/);
    expect(out).toContain("1 given with --key");
    expect(out).not.toContain("sk-private-abcdef-123");
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  it("exits 2 listing every bad flag", async () => {
    const cli = runCli(["emulator", "--port", "x", "--error-rate", "1.5", "--error-schedule", "3,a"]);
    expect(await cli.exited).toBe(2);
    const { err } = cli.output();
    expect(err).toContain("--port");
    expect(err).toContain("--error-rate");
    expect(err).toContain("--error-schedule");
  });

  it("maps flags to emulator options", () => {
    expect(
      emulatorOptionsFromFlags({
        port: "0",
        rateLimit: "5",
        rateBurst: "10",
        errorSchedule: "3,7",
        driftRate: "0.25",
        failedReports: "4",
        key: ["sk-a-12345678"],
        balance: "100",
      }),
    ).toEqual({
      port: 0,
      host: "127.0.0.1",
      rateLimit: { perSecond: 5, burst: 10 },
      errorSchedule: [3, 7],
      driftRate: 0.25,
      failedReports: [4],
      keys: [{ key: "sk-a-12345678", balance: 100 }],
    });
  });
});
