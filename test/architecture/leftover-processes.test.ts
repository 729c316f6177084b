import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { afterTest } from "../helpers/after-test.js";
import { findLeftovers, reapLeftovers, workerLeftovers } from "../helpers/leftovers.js";
import { RUN_MARKER_ENV } from "../helpers/run-marker.js";
import { until } from "../helpers/until.js";

// The global teardown (test/global-setup.ts) fails the suite on what a test left running; these
// trials show it would see a left process and its port, with a marker of their own so the suite's
// teardown is not the one to find them. This worker's parent is vitest's main process.

function started(
  args: string[],
  marker: string,
): { child: ChildProcess; ended: Promise<void>; out: () => string } {
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, [RUN_MARKER_ENV]: marker },
  });
  const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  afterTest(async () => {
    child.kill("SIGKILL");
    await ended;
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  return { child, ended, out: () => out };
}

const newMarker = () => `self-test-${randomBytes(4).toString("hex")}`;
const LISTENER =
  "const s = require('net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))";

describe("what the tests leave running", () => {
  it("is found by its marker, with its command line and the port it listens on, and no more once it ends", async () => {
    const marker = newMarker();
    const { child, ended, out } = started(["-e", LISTENER], marker);
    const port = Number(await until(async () => out().trim() || undefined, 10_000, "the listener's port"));
    expect(findLeftovers(marker, process.ppid)).toEqual([
      { pid: child.pid, command: `${process.execPath} -e ${LISTENER}`, ports: [port], vitests: false },
    ]);
    child.kill("SIGTERM");
    await ended;
    expect(findLeftovers(marker, process.ppid)).toEqual([]);
  });

  it("is killed once the grace is over, and returned", async () => {
    const marker = newMarker();
    const { child, ended } = started(["-e", "setInterval(() => {}, 1000)"], marker);
    await until(
      async () => findLeftovers(marker, process.ppid).length > 0 || undefined,
      10_000,
      "the process to start",
    );
    const left = await reapLeftovers(() => findLeftovers(marker, process.ppid), 300);
    expect(left.map((l) => l.pid)).toEqual([child.pid]);
    await ended;
    expect(child.signalCode).toBe("SIGKILL");
  });

  it("in a test worker: a server it listens with and a process it started, until closed and ended", async () => {
    const before = workerLeftovers();
    const server = createServer().listen(0, "127.0.0.1");
    afterTest(() => server.close());
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as { port: number }).port;
    const { child, ended } = started(["-e", "setInterval(() => {}, 1000)"], newMarker());
    const left = workerLeftovers();
    expect(left.find((l) => l.pid === process.pid)).toMatchObject({ ports: [port], vitests: true });
    expect(left.find((l) => l.pid === child.pid)).toMatchObject({ ports: [], vitests: false });
    server.close();
    child.kill("SIGTERM");
    await ended;
    expect(workerLeftovers()).toEqual(before);
  });

  it("carries the run's marker even when a test gives it an environment of its own", () => {
    const seen = spawnSync(process.execPath, ["-p", `process.env.${RUN_MARKER_ENV}`], {
      env: {},
      encoding: "utf8",
    });
    expect(seen.stdout.trim()).toBe(process.env[RUN_MARKER_ENV]);
    expect(process.env[RUN_MARKER_ENV]).toBeTruthy();
  });
});
