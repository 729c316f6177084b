import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the server does with one request. */
export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Wait before answering (ms). */
  delayMs?: number;
  /** Destroy the socket instead of answering, after the request arrived. */
  destroy?: boolean;
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: the same port twice means the connection was kept alive. */
  remotePort: number;
}

/** A valid envelope around `data` (contract 2.1). */
export function envelope(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    code: 0,
    msg: "success",
    data,
    ts: "1767225600000",
    time: "2026-01-01 00:00:00",
    cost: "12",
    traceId: "trace-1",
    ...extra,
  };
}

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) whose answers each test scripts. Scripted
 * answers are used in order; once they run out, the last one repeats.
 */
export class FakeServer {
  readonly requests: Received[] = [];
  #script: Scripted[] = [{ body: envelope({}) }];
  #next = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.requests.push({
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          remotePort: req.socket.remotePort ?? 0,
        });
        const step = this.#script[Math.min(this.#next++, this.#script.length - 1)] ?? {};
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          if (step.destroy) req.socket.destroy();
          else answer(res, step);
        }, step.delayMs ?? 0);
        this.#timers.add(timer);
      });
    });
    this.#server.on("connection", (s: Socket) => {
      this.#sockets.add(s);
      s.on("close", () => this.#sockets.delete(s));
    });
  }

  static async start(): Promise<FakeServer> {
    const fake = new FakeServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Replaces the script: these answers in order, the last one repeating. */
  script(...steps: Scripted[]): this {
    this.#script = steps.length > 0 ? steps : [{}];
    this.#next = 0;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function answer(res: ServerResponse, step: Scripted): void {
  const body =
    step.body === undefined ? "" : typeof step.body === "string" ? step.body : JSON.stringify(step.body);
  res.writeHead(step.status ?? 200, { "content-type": "application/json", ...step.headers });
  res.end(body);
}

/** A port on 127.0.0.1 with nothing listening (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
