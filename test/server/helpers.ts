import { connect, type Socket } from "node:net";
import { SheetsConnector } from "../../connectors/sheets/connector.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { EmulatorOptions } from "../../emulator/index.js";
import { type ServerOptions, type SkillsyncServer, signedHeaders, startServer } from "../../server/index.js";
import { afterTest } from "../helpers/after-test.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, type WarehouseKind } from "../helpers/warehouses.js";

export const SECRET = "test-server-secret-0123456789abcdef-XYZ";

export interface TestServer {
  server: SkillsyncServer;
  warehouse: Warehouse;
  emulator: Awaited<ReturnType<typeof emulatorWithClient>>["emulator"];
  logs: string[];
  /** A signed request; `sign` overrides what is signed (to forge bad requests). */
  call(
    method: string,
    path: string,
    body?: unknown,
    o?: {
      secret?: string;
      timestamp?: number;
      signBody?: string;
      signPath?: string;
      headers?: Record<string, string>;
    },
    // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  ): Promise<{ status: number; json: any; text: string }>;
}

/**
 * Google Sheets as a server configured with credentials has it, for tests that store sheet
 * schedules and never fire them: its API is a closed loopback port, so a call would fail loudly.
 */
export function sheetsNeverCalled(): Promise<SheetsConnector> {
  return SheetsConnector.create({
    credentials: { accessToken: "never-used-token" },
    rootUrl: "http://127.0.0.1:9/",
  });
}

/** The server on an ephemeral port over a fresh warehouse of `kind`, against the emulator. */
export async function startTestServer(
  kind: WarehouseKind,
  options: Partial<ServerOptions> = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<TestServer> {
  const { emulator, client } = await emulatorWithClient(emulatorOptions);
  const warehouse = await openWarehouse(freshWarehouseUrl(kind));
  afterTest(() => warehouse.close());
  const logs: string[] = [];
  const server = await startServer({
    secret: SECRET,
    warehouse,
    client,
    maxCredits: 50,
    port: 0,
    host: "127.0.0.1",
    log: (l) => logs.push(l),
    ...options,
  });
  afterTest(() => server.close());
  return {
    server,
    warehouse,
    emulator,
    logs,
    async call(method, path, body, o = {}) {
      const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
      const headers = {
        ...(text ? { "content-type": "application/json" } : {}),
        ...signedHeaders(o.secret ?? SECRET, {
          method,
          pathWithQuery: o.signPath ?? path,
          body: o.signBody ?? text,
          ...(o.timestamp === undefined ? {} : { timestamp: o.timestamp }),
        }),
        ...o.headers,
      };
      const res = await fetch(`${server.url}${path}`, { method, headers, ...(text ? { body: text } : {}) });
      const t = await res.text();
      let json: unknown = null;
      try {
        json = JSON.parse(t);
      } catch {}
      return { status: res.status, json, text: t };
    },
  };
}

/** Polls GET /runs/:id until the run has finished. */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
export async function waitForRun(t: TestServer, id: string, timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // Each signature is single-use: a nonce keeps two polls within one second apart.
    const r = await t.call("GET", `/runs/${id}?nonce=${Math.random().toString(36).slice(2)}`);
    if (r.status !== 200) throw new Error(`GET /runs/${id} answered ${r.status}: ${r.text}`);
    if (!["queued", "running"].includes(r.json.status)) return r.json;
    if (Date.now() > until) throw new Error(`run ${id} still ${r.json.status}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/** A raw connection to the server (node:net): what it sent back, and when, measured from the connect. */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Ms from the connect until `pattern` was in what was received (within `deadlineMs`, or throws). */
  answered(pattern: RegExp, deadlineMs?: number): Promise<number>;
  /** Ms from the connect until the server closed the connection (within `deadlineMs`, or throws). */
  closed(deadlineMs?: number): Promise<number>;
  /** The socket error seen, if any (ECONNRESET, EPIPE…). */
  error(): string | undefined;
}

/** Opens a raw connection to `port` on loopback, resolved once connected. */
export function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, "127.0.0.1");
  afterTest(async () => void socket.destroy());
  const start = performance.now();
  let text = "";
  let error: string | undefined;
  const seen: (() => void)[] = [];
  socket.on("data", (d) => {
    text += d.toString("latin1");
    for (const check of seen) check();
  });
  socket.on("error", (e) => {
    error = (e as NodeJS.ErrnoException).code ?? e.message;
  });
  const closedAt = new Promise<number>((resolve) =>
    socket.on("close", () => resolve(performance.now() - start)),
  );
  const within = <T>(p: Promise<T>, ms: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within ${ms} ms; got ${JSON.stringify(text)}`)),
        ms,
      );
      void p.then((v) => {
        clearTimeout(timer);
        resolve(v);
      });
    });
  const conn: RawConnection = {
    socket,
    received: () => text,
    error: () => error,
    answered: (pattern, deadlineMs = 10_000) =>
      within(
        new Promise<number>((resolve) => {
          const check = () => {
            if (pattern.test(text)) resolve(performance.now() - start);
          };
          seen.push(check);
          check();
        }),
        deadlineMs,
        `answer matching ${pattern}`,
      ),
    closed: (deadlineMs = 10_000) => within(closedAt, deadlineMs, "close"),
  };
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(conn));
    socket.once("error", reject);
  });
}
