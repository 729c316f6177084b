import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { RUN_MARKER_ENV } from "./run-marker.js";

/** A process still alive after the tests, with the TCP ports it listens on. */
export interface Leftover {
  pid: number;
  command: string;
  ports: number[];
  /** Vitest's (a worker, esbuild's service): listed only when it listens, and never killed here. */
  vitests: boolean;
}

interface Proc {
  pid: number;
  ppid: number;
  /** The `NAME=value` entries of its environment. */
  environ: string[];
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback; // gone meanwhile, or not ours to read
  }
}

/** Every process of this machine still running (the ended ones not yet reaped left out). */
function liveProcesses(): Proc[] {
  const found: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    // The state and the parent follow the command's closing parenthesis; Z and X have ended.
    const stat = /\)\s+(\S)\s+(\d+)/.exec(readOr(`/proc/${pid}/stat`, ""));
    if (!stat || stat[1] === "Z" || stat[1] === "X") continue;
    found.push({ pid, ppid: Number(stat[2]), environ: readOr(`/proc/${pid}/environ`, "").split("\0") });
  }
  return found;
}

/** Socket inode → port of every TCP socket listening on this machine (IPv4 and IPv6). */
function listeningPorts(): Map<string, number> {
  const ports = new Map<string, number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readOr(table, "").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, state, inode] = [f[1], f[3], f[9]];
      // 0A is TCP_LISTEN.
      if (local && inode && state === "0A") ports.set(inode, Number.parseInt(local.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}

/** The ports among `listening` whose sockets the process holds open. */
function portsOf(pid: number, listening: Map<string, number>): number[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const ports = new Set<number>();
  for (const fd of fds) {
    let link = "";
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {}
    const port = listening.get(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? "");
    if (port !== undefined) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

function leftover(pid: number, listening: Map<string, number>, vitests: boolean): Leftover {
  const command = readOr(`/proc/${pid}/cmdline`, "").split("\0").join(" ").trim();
  return { pid, command, ports: portsOf(pid, listening), vitests };
}

/**
 * The processes whose environment carries the run's `marker`, still alive, each with its listening
 * ports, but for vitest's main process (`vitestPid`). Its children (a worker, esbuild's service)
 * are vitest's, not a test's: listed only when they listen (a server a test left open in a worker).
 * A test's process whose parent ended has another parent by now.
 */
export function findLeftovers(marker: string, vitestPid: number): Leftover[] {
  const listening = listeningPorts();
  return liveProcesses()
    .filter((p) => p.pid !== vitestPid && p.environ.includes(`${RUN_MARKER_ENV}=${marker}`))
    .map((p) => leftover(p.pid, listening, p.ppid === vitestPid))
    .filter((l) => !l.vitests || l.ports.length);
}

/** The ports this process listens on. */
export function ownPorts(): number[] {
  return portsOf(process.pid, listeningPorts());
}

/**
 * What a test worker (this process) still holds once a test file is done: the ports it listens on
 * but for those it listened on `before` the file (another file's, reported there), and the
 * processes it started that are still alive. The global teardown cannot see the ports: the
 * workers have ended by then.
 */
export function workerLeftovers(before: readonly number[] = []): Leftover[] {
  const listening = listeningPorts();
  const own = { ...leftover(process.pid, listening, true), command: "the test worker itself" };
  own.ports = own.ports.filter((p) => !before.includes(p));
  const children = liveProcesses()
    .filter((p) => p.ppid === process.pid)
    .map((p) => leftover(p.pid, listening, false));
  return own.ports.length ? [own, ...children] : children;
}

/** One line per leftover: its pid, command line and ports. */
export function describeLeftovers(leftovers: Leftover[]): string {
  return leftovers
    .map((l) => {
      const ports = l.ports.length ? `, listening on port ${l.ports.join(", ")}` : "";
      return `  pid ${l.pid}${l.vitests ? " (vitest's own)" : ""}: ${l.command}${ports}`;
    })
    .join("\n");
}

/**
 * Waits up to `graceMs` for what `find` lists to end (some processes are being killed as the last
 * tests finish), then kills the processes left, vitest's aside, and returns what was left (empty
 * when all ended).
 */
export async function reapLeftovers(find: () => Leftover[], graceMs: number): Promise<Leftover[]> {
  const deadline = Date.now() + graceMs;
  let left = find();
  while (left.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = find();
  }
  for (const l of left) {
    if (l.vitests) continue;
    try {
      process.kill(l.pid, "SIGKILL");
    } catch {}
  }
  return left;
}
