import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLog } from "../../cli/log.js";
import { registerSecret } from "../../core/redact.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { jsonLines } from "../helpers/json-lines.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { tempDir } from "../scheduler/fixtures.js";

// Issue 32 §5: `--log-format json` (or SKILLSYNC_LOG_FORMAT=json) makes stderr one JSON object per
// line: time, level, event, runId where there is one, message.

const wellFormed = (o: Record<string, unknown>) =>
  typeof o["time"] === "string" &&
  !Number.isNaN(Date.parse(o["time"] as string)) &&
  ["debug", "info", "warn", "error"].includes(o["level"] as string) &&
  /^[a-z]+(\.[a-z-]+)+$/.test(o["event"] as string) &&
  typeof o["message"] === "string";

describe("JSON logs", () => {
  it("jsonLog writes one object per line and redacts registered secrets and secret members", () => {
    const secret = "sk-live-json-log-test-0123456789";
    registerSecret(secret);
    const lines: string[] = [];
    const log = jsonLog((l) => lines.push(l));
    log(`called with ${secret}`, {
      event: "run.started",
      runId: "r1",
      apiKey: "abc",
      nested: { note: secret },
    });
    log("slow", { event: "http.request", level: "warn", ms: 1200 });
    expect(lines.every((l) => l.endsWith("\n") && l.indexOf("\n") === l.length - 1)).toBe(true);
    const [a, b] = jsonLines(lines.join(""));
    expect(a).toMatchObject({ level: "info", event: "run.started", runId: "r1", apiKey: "[redacted]" });
    expect(a!["message"]).toBe("called with [redacted]");
    expect(a!["nested"]).toEqual({ note: "[redacted]" });
    expect(b).toMatchObject({ level: "warn", event: "http.request", ms: 1200, message: "slow" });
    expect(lines.join("")).not.toContain(secret);
    expect([a, b].every((o) => wellFormed(o!))).toBe(true);
  });

  it("run: events on stderr with the run id (started, pipeline finished, finished), stdout unchanged", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = [
      "run",
      "marketplace-search",
      "--param",
      "keyword=usb hub",
      "--db",
      freshWarehouseUrl("sqlite"),
    ];
    const r = await cli([...args, "--log-format", "json"], env);
    expect(r.code, r.err).toBe(0);
    const runId = /^run (\S+): succeeded$/m.exec(r.out)?.[1];
    expect(runId, r.out).toBeDefined();
    const events = jsonLines(r.err);
    expect(events.every(wellFormed), r.err).toBe(true);
    const names = events.map((e) => e["event"]);
    expect(names[0]).toBe("run.started");
    expect(names).toContain("run.pipeline.finished");
    expect(names.at(-1)).toBe("run.finished");
    for (const e of events.filter((e) => String(e["event"]).startsWith("run.")))
      expect(e["runId"]).toBe(runId);
    expect(events.at(-1)).toMatchObject({ status: "succeeded", exitCode: 0, level: "info" });
    expect(r.err).not.toContain(DEMO_KEY);

    // The variable does the same; the run resumes (same pipelines and params) and says so.
    const again = await cli(args, { ...env, SKILLSYNC_LOG_FORMAT: "json" });
    expect(again.code, again.err).toBe(0);
    expect(jsonLines(again.err).map((e) => e["event"])).toContain("run.finished");
  }, 60_000);

  it("run: rejected records are run.warning events and a run.finished at level warn with exit code 5", async () => {
    const { emulator } = await emulatorWithClient();
    const file = join(tempDir(), "typed.yaml");
    // Every title is text: typed number, every record is rejected.
    writeFileSync(
      file,
      `name: typed
skill: marketplace-search
request: { keyword: usb hub }
records:
  path: products
  table: typed_rows
  key: [asin]
  columns:
    asin: text
    title: number
`,
    );
    const r = await cli(["run", file, "--db", freshWarehouseUrl("sqlite"), "--log-format", "json"], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.code, r.err).toBe(5);
    const events = jsonLines(r.err);
    expect(events.some((e) => e["event"] === "run.warning" && e["level"] === "warn")).toBe(true);
    expect(events.at(-1)).toMatchObject({
      event: "run.finished",
      status: "warnings",
      exitCode: 5,
      level: "warn",
    });
  }, 60_000);

  it("an error that ends a command is one JSON object too; a bad format is exit 2 naming the flag or variable", async () => {
    const failed = await cli(["run", "no-such-pipeline", "--log-format", "json"]);
    expect(failed.code).toBe(2);
    const [only, ...rest] = jsonLines(failed.err);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ event: "command.failed", level: "error", exitCode: 2, code: "VALIDATION" });
    expect(only!["message"]).toContain("no-such-pipeline");

    const flag = await cli(["runs", "--log-format", "xml"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain("--log-format");
    const env = await cli(["runs", "--db", freshWarehouseUrl("sqlite")], { SKILLSYNC_LOG_FORMAT: "xml" });
    expect(env.code).toBe(2);
    expect(env.err).toContain('SKILLSYNC_LOG_FORMAT: is "xml": use text or json');
  });
});
