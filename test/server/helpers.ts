import { afterEach } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { EmulatorOptions } from "../../emulator/index.js";
import { type ServerOptions, type SkillsyncServer, signedHeaders, startServer } from "../../server/index.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, type WarehouseKind } from "../helpers/warehouses.js";

export const SECRET = "test-server-secret-0123456789abcdef-XYZ";

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

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

/** The server on an ephemeral port over a fresh warehouse of `kind`, against the emulator. */
export async function startTestServer(
  kind: WarehouseKind,
  options: Partial<ServerOptions> = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<TestServer> {
  const { emulator, client } = await emulatorWithClient(emulatorOptions);
  const warehouse = await openWarehouse(freshWarehouseUrl(kind));
  open.push(() => warehouse.close());
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
  open.push(() => server.close());
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
