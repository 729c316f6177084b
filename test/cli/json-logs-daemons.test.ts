import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it, onTestFailed } from "vitest";
import { signedHeaders } from "../../server/signature.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { jsonLines } from "../helpers/json-lines.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";
import { tempDir, writeScheduledPipeline } from "../scheduler/fixtures.js";

// Issue 32 §5 for the long-running commands, each as its own process with --log-format json:
// stderr holds only JSON objects (time, level, event), never the API key or the server secret.
const SECRET = "json-logs-server-secret-7f3a9c1e5b2d8f4a6c0e";
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

type Event = Record<string, unknown>;

/** `skillsync <args>` from source, stdout and stderr kept apart; waits on stderr's events. */
function skillsync(args: string[], env: Record<string, string>, stdin: "ignore" | "pipe" = "ignore") {
  const child = spawn(process.execPath, [...nodeEntry("cli/run.ts"), ...args, "--log-format", "json"], {
    stdio: [stdin, "pipe", "pipe"],
    env: {
      ...process.env,
      DATABASE_URL: "",
      SKILLSYNC_SERVER_SECRET: SECRET,
      SKILL_API_KEY: DEMO_KEY,
      ...env,
    },
  });
  children.push(child);
  let out = "";
  let err = "";
  onTestFailed(() =>
    console.error(`--- skillsync ${args[0]} stderr:\n${err.slice(-4000)}\nstdout:\n${out.slice(-2000)}`),
  );
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  // "close", not "exit": by then everything it wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // Only whole lines: the last may still be arriving.
  const events = () => jsonLines(err.slice(0, err.lastIndexOf("\n") + 1));
  return {
    child,
    exited,
    out: () => out,
    err: () => err,
    async waitFor(match: (e: Event) => boolean, what: string, ms = 60_000): Promise<Event> {
      const end = Date.now() + ms;
      for (;;) {
        const found = events().find(match);
        if (found) return found;
        if (Date.now() > end || child.exitCode !== null)
          throw new Error(`no ${what} within ${ms} ms:\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** SIGTERM, then every line of stderr: all JSON with time, level and event, no secret. */
    async stop(): Promise<Event[]> {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const all = jsonLines(err);
      for (const e of all) {
        expect(
          typeof e["time"] === "string" && typeof e["level"] === "string" && typeof e["event"] === "string",
        ).toBe(true);
      }
      for (const secret of [SECRET, DEMO_KEY]) expect(err + out).not.toContain(secret);
      return all;
    },
  };
}

const is = (event: string) => (e: Event) => e["event"] === event;

describe("--log-format json of the long-running commands", () => {
  it("serve: http.request events, the secret and the key redacted even when a client sends them", async () => {
    const { emulator } = await emulatorWithClient();
    const p = skillsync(["serve", "--port", "0", "--db", freshWarehouseUrl("sqlite")], {
      SKILL_API_BASE_URL: emulator.url,
    });
    const ready = await p.waitFor(is("serve.listening"), "serve.listening");
    const url = String(ready["url"]);
    const path = "/budget";
    const signed = await fetch(url + path, {
      headers: signedHeaders(SECRET, { method: "GET", pathWithQuery: path, body: "" }),
    });
    expect(signed.status).toBe(200);
    // Secrets in a path are logged as the path: they must come out redacted.
    expect((await fetch(`${url}/tables/${SECRET}`)).status).toBe(401);
    expect((await fetch(`${url}/tables/${DEMO_KEY}`)).status).toBe(401);
    await p.waitFor(
      (e) => is("http.request")(e) && String(e["message"]).includes("[redacted]"),
      "the redacted requests",
    );
    const events = await p.stop();
    expect(p.out()).toBe("");
    const requests = events.filter(is("http.request"));
    expect(requests.map((e) => [e["method"], e["status"]])).toEqual([
      ["GET", 200],
      ["GET", 401],
      ["GET", 401],
    ]);
    expect(requests[0]).toMatchObject({ path: "/budget", level: "info" });
    expect(requests[1]!["path"]).toBe("/tables/[redacted]");
    expect(events.map((e) => e["event"])).toContain("serve.stopping");
  }, 120_000);

  it("schedule: schedule.tick and schedule.run.finished events with the run id", async () => {
    const { emulator } = await emulatorWithClient();
    const file = writeScheduledPipeline(tempDir());
    const p = skillsync(["schedule", file, "--db", freshWarehouseUrl("sqlite"), "--grace", "5"], {
      SKILL_API_BASE_URL: emulator.url,
    });
    const finished = await p.waitFor(is("schedule.run.finished"), "a scheduled run");
    expect(finished).toMatchObject({ pipeline: "sched-search", status: "succeeded", level: "info" });
    expect(String(finished["runId"])).toMatch(/^r\d{14}-/);
    const events = await p.stop();
    const names = events.map((e) => e["event"]);
    expect(names).toEqual(
      expect.arrayContaining([
        "schedule.started",
        "schedule.tick",
        "schedule.run.started",
        "schedule.stopped",
      ]),
    );
    const started = events.find((e) => is("schedule.run.started")(e) && e["runId"] === finished["runId"]);
    expect(started).toMatchObject({ pipeline: "sched-search" });
  }, 120_000);

  it("mcp: JSON events on stderr while stdout carries only the protocol", async () => {
    const { emulator } = await emulatorWithClient();
    const p = skillsync(
      ["mcp", "--max-credits", "0", "--db", freshWarehouseUrl("sqlite")],
      { SKILL_API_BASE_URL: emulator.url },
      "pipe",
    );
    await p.waitFor(is("mcp.started"), "mcp.started");
    const hello = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    p.child.stdin!.write(`${JSON.stringify(hello)}\n`);
    const end = Date.now() + 60_000;
    while (!p.out().includes('"id":1') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    p.child.stdin!.end();
    expect(await p.exited).toBe(0);
    const events = jsonLines(p.err());
    expect(events.map((e) => e["event"])).toEqual(["mcp.ready", "mcp.started", "mcp.stopping"]);
    const protocol = jsonLines(p.out());
    expect(protocol.every((m) => m["jsonrpc"] === "2.0")).toBe(true);
    expect(protocol[0]).toMatchObject({ id: 1 });
  }, 120_000);

  it.skipIf(unavailable("postgres"))(
    "worker (Postgres): worker.batch events carry the run id of the run queued",
    async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl("postgres");
      const p = skillsync(["worker", "--db", db], { SKILL_API_BASE_URL: emulator.url });
      await p.waitFor(is("worker.started"), "worker.started");
      const r = await cli(
        [
          "run",
          "marketplace-search",
          "--param",
          "keyword=lamp",
          "--db",
          db,
          "--workers",
          "--log-format",
          "json",
        ],
        {
          SKILL_API_BASE_URL: emulator.url,
          SKILL_API_KEY: DEMO_KEY,
        },
      );
      expect(r.code, r.err).toBe(0);
      const runId = jsonLines(r.err).find(is("run.finished"))?.["runId"];
      expect(runId).toBeDefined();
      const batch = await p.waitFor(is("worker.batch"), "worker.batch");
      expect(batch).toMatchObject({ runId, calls: 1, level: "info" });
      const events = await p.stop();
      expect(events.map((e) => e["event"])).toEqual(
        expect.arrayContaining(["worker.ready", "worker.stopping", "worker.stopped"]),
      );
    },
    120_000,
  );
});
