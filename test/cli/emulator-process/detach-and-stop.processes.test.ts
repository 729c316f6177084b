import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  emulatorLogPath,
  readEmulatorRecord,
  recordEmulator,
  recordFolder,
} from "../../../cli/emulator-process/record.js";
import { DEMO_KEY } from "../../../emulator/index.js";
import { closedPort } from "../../helpers/closed-port.js";
import { nodeEntry } from "../../helpers/node-entry.js";
import { until } from "../../helpers/until.js";

// Every process of a test records its emulators in a temp folder of its own (TMPDIR).
const savedTmp = process.env["TMPDIR"];
const base = tmpdir();
beforeEach(() => {
  process.env["TMPDIR"] = mkdtempSync(join(base, "skillsync-emu-records-"));
});

const children: ChildProcess[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Stopped by the test already.
    }
  }
  // The test's own records folder goes with it (a killed emulator's record file included).
  const own = process.env["TMPDIR"];
  if (own && own !== base) rmSync(own, { recursive: true, force: true });
  if (savedTmp === undefined) delete process.env["TMPDIR"];
  else process.env["TMPDIR"] = savedTmp;
});

/** `skillsync …` as a real process: its output, and a promise of its exit code. */
function start(args: string[]) {
  const child = spawn(process.execPath, nodeEntry("cli/run.ts", ...args), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const io = { out: "", err: "" };
  child.stdout?.on("data", (d: Buffer) => {
    io.out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    io.err += d.toString();
  });
  const code = new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  return { child, io, code };
}

/** A command that ends by itself: its exit code and output. */
async function run(args: string[]) {
  const p = start(args);
  const code = await p.code;
  return { code, ...p.io };
}

/** `emulator --detach` on a free port; the emulator it leaves behind is killed after the test. */
async function detach(port: number) {
  const r = await run(["emulator", "--detach", "--port", String(port)]);
  const pid = Number(/in the background \(pid (\d+)\)/.exec(r.out)?.[1]);
  if (pid) pids.push(pid);
  return { ...r, pid };
}

const answers = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/api/skill-api/v1/skills/marketplace-search/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ keyword: "lamp" }),
  });
  return res.status;
};

/** Whether this process can listen on the port now (what the next `skillsync emulator` needs). */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });

describe("skillsync emulator --detach and emulator stop", { timeout: 120_000 }, () => {
  it("--detach leaves the emulator running and exits 0; `stop` ends it with SIGTERM and frees the port", async () => {
    const port = await closedPort();
    const d = await detach(port);
    expect(d.code, d.err).toBe(0);
    expect(d.out).toContain(`listening on http://127.0.0.1:${port} in the background (pid ${d.pid})`);
    expect(d.out).toContain(`demo key: ${DEMO_KEY}`);
    expect(d.out).toContain(`stop it:  npx skillsync emulator stop --port ${port}`);
    expect(readEmulatorRecord(port)).toMatchObject({ pid: d.pid, port, url: `http://127.0.0.1:${port}` });
    // Its starter is gone; the emulator serves.
    expect(await answers(port)).toBe(200);

    const stop = await run(["emulator", "stop", "--port", String(port)]);
    expect(stop.code, stop.err).toBe(0);
    expect(stop.out).toBe(
      `stopped the emulator at http://127.0.0.1:${port} (pid ${d.pid}); port ${port} is free\n`,
    );
    expect(await canListen(port)).toBe(true);
    expect(readEmulatorRecord(port)).toBeUndefined();
    // Stopped by SIGTERM, cleanly: it printed its totals to its output file.
    await until(
      async () =>
        readFileSync(emulatorLogPath(port), "utf8").includes("emulator stopped on SIGTERM after 1 calls"),
      30_000,
      "the emulator's last line",
    );

    const again = await run(["emulator", "stop", "--port", String(port)]);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`skillsync: no emulator runs on port ${port}`);
  });

  it("a port taken by a detached emulator: a second one says which port and how to stop it, exit 2", async () => {
    const port = await closedPort();
    const first = await detach(port);
    expect(first.code, first.err).toBe(0);
    const second = await run(["emulator", "--detach", "--port", String(port)]);
    expect(second.code).toBe(2);
    expect(second.err).toContain(
      `skillsync: port ${port} on 127.0.0.1 is in use (--port): a skillsync emulator is already running at http://127.0.0.1:${port}`,
    );
    expect(second.err).toContain(`\`skillsync emulator stop --port ${port}\``);
    expect(second.err).toContain("--port 0 for any free one");
    expect(second.out).toBe("");
    // The running one keeps its record and its port.
    expect(readEmulatorRecord(port)?.pid).toBe(first.pid);
    expect(await answers(port)).toBe(200);
  });

  it("--detach with a bad flag exits 2 and starts nothing", async () => {
    const r = await run(["emulator", "--detach", "--port", "x"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--port");
    expect(existsSync(recordFolder())).toBe(false);
  });

  it("`stop` stops an emulator running in a terminal too (it records itself as well)", async () => {
    const port = await closedPort();
    const fg = start(["emulator", "--port", String(port)]);
    await until(async () => readEmulatorRecord(port), 60_000, "the emulator's record");
    const stop = await run(["emulator", "stop", "--port", String(port)]);
    expect(stop.code, stop.err).toBe(0);
    expect(await fg.code).toBe(0);
    expect(fg.io.out).toContain("emulator stopped on SIGTERM after 0 calls, 0 credits");
  });

  it("a record whose process is gone: says so, removes it, exit 1", async () => {
    const port = await closedPort();
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.on("exit", r));
    recordEmulator({ pid: gone.pid ?? 0, port, host: "127.0.0.1", url: `http://127.0.0.1:${port}` });
    const r = await run(["emulator", "stop", "--port", String(port)]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `no emulator runs on port ${port} any more: the one recorded there (pid ${gone.pid}`,
    );
    expect(readEmulatorRecord(port)).toBeUndefined();
  });

  it("an emulator that ignores SIGTERM: `stop` says the port is still taken after --wait and how to end it, exit 1", async () => {
    const port = await closedPort();
    // Answers like an emulator's clock, and stays on SIGTERM.
    const stubborn = spawn(
      process.execPath,
      [
        "-e",
        `process.on("SIGTERM", () => {});
         require("node:http").createServer((q, s) => s.end('{"date":"2026-11-01"}'))
           .listen(${port}, "127.0.0.1", () => process.stdout.write("listening\\n"));`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(stubborn);
    let out = "";
    stubborn.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await until(async () => out.includes("listening"), 30_000, "the stand-in emulator");
    const pid = stubborn.pid ?? 0;
    recordEmulator({ pid, port, host: "127.0.0.1", url: `http://127.0.0.1:${port}` });
    const r = await run(["emulator", "stop", "--port", String(port), "--wait", "1"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`port ${port} is still taken after 1 s (--wait); end it with \`kill -9 ${pid}\``);
    expect(stubborn.exitCode).toBeNull();
  });
});
