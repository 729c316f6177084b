import { ConfigurationError } from "../core/errors.js";

/** What a `listen` was asked for, to say which setting to change when the port is taken. */
export interface Listening {
  port: number;
  host: string;
  /** The flag that chose the port: `--port`, `--metrics-port`. */
  flag: string;
}

/**
 * Starts a listener; when its port is taken (EADDRINUSE) the error says whose it is — a skillsync
 * emulator, server or worker left running is the common case — how to stop it, and `--port 0`.
 *
 * @example const emu = await listenOrExplain(() => startEmulator({ port: 7878 }), { port: 7878, host: "127.0.0.1", flag: "--port" });
 */
export async function listenOrExplain<T>(start: () => Promise<T>, at: Listening): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const code = err && typeof err === "object" && "code" in err ? err.code : undefined;
    if (code === "EADDRINUSE") {
      const who = await whoListens(at);
      throw new ConfigurationError(
        `port ${at.port} on ${at.host} is in use (${at.flag}): ${who}. Pick another port, or ${at.flag} 0 for any free one`,
        { cause: err },
      );
    }
    const why = typeof code === "string" ? REFUSED[code] : undefined;
    if (why) throw new ConfigurationError(why(at), { cause: err });
    throw err;
  }
}

/** What the system refused, said with the setting to change; the rest stays Node's own error. */
const REFUSED: Record<string, (at: Listening) => string> = {
  EACCES: (at) =>
    `port ${at.port} on ${at.host} needs privileges this user does not have (${at.flag}): ports below 1024 are the system's; pick one from 1024 to 65535, or ${at.flag} 0 for any free one`,
  EADDRNOTAVAIL: (at) =>
    `${at.host} is not an address of this machine (--host): give one of its own, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`,
};

const stop = (command: string) =>
  `stop it with Ctrl-C in its terminal, or kill its process (e.g. \`pkill -f 'skillsync ${command}'\`)`;

/** The http:// address of a listener (an IPv6 host in brackets). */
const listenerUrl = (host: string, port: number) =>
  `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

/** Whether a skillsync emulator answers at `base`: its clock endpoint says so, and nothing else has one. */
export async function emulatorAnswers(base: string): Promise<boolean> {
  const clock = await probe(`${base}/__emulator/clock`);
  return clock?.status === 200 && /"date"/.test(clock.text);
}

/** Asks the port what it is, briefly: our emulator, server and worker metrics each say so. */
async function whoListens(at: Listening): Promise<string> {
  const base = listenerUrl(at.host, at.port);
  if (await emulatorAnswers(base))
    return `a skillsync emulator is already running at ${base}; use it (SKILL_API_BASE_URL=${base}), or stop it with \`skillsync emulator stop --port ${at.port}\` (or Ctrl-C in its terminal)`;
  const metrics = await probe(`${base}/metrics`);
  if (metrics?.status === 200 && metrics.text.includes("skillsync_worker_"))
    return `a skillsync worker serves its metrics there; ${stop("worker")}`;
  const root = await probe(`${base}/runs`);
  if (root && /"error":\{"code":"[A-Z_]+"/.test(root.text))
    return `a skillsync server is already running at ${base}; ${stop("serve")}`;
  return "another program listens there (find it with `ss -ltnp` or `lsof -i`)";
}

async function probe(url: string): Promise<{ status: number; text: string } | undefined> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(1500) });
    return { status: r.status, text: (await r.text()).slice(0, 4096) };
  } catch {
    return undefined;
  }
}
