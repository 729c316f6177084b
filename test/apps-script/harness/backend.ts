import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parentPort } from "node:worker_threads";
import { SheetsConnector } from "../../../connectors/sheets/connector.js";
import { SkillClient } from "../../../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { DEMO_KEY, type Emulator, startEmulator } from "../../../emulator/index.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { type SkillsyncServer, startServer } from "../../../server/index.js";
import { loadsOfRun } from "../../../store/loads.js";
import { type BackendCommand, FETCH, type FetchRequest } from "./protocol.js";

/**
 * Runs in a worker thread: the emulator, a real `skillsync serve` over a fresh warehouse, a plain
 * non-Skillsync HTTP server (a proxy answering HTML), and the HTTP fetches the main thread waits for.
 */
interface Running {
  emulator: Emulator;
  client: SkillClient;
  warehouse: Warehouse;
  server: SkillsyncServer;
  html: Server;
  htmlUrl: string;
  logs: string[];
}

let running: Running | undefined;
const port = parentPort!;

async function start(c: Extract<BackendCommand, { type: "start" }>): Promise<unknown> {
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1" });
  const client = new SkillClient({ baseUrl: emulator.url, apiKey: DEMO_KEY, retryBaseDelayMs: 10 });
  const warehouse = await openWarehouse(c.warehouseUrl);
  const offset = new Float64Array(c.clock);
  const logs: string[] = [];
  // The server's clock follows the simulated one, so signatures made in a simulated future still count.
  const server = await startServer({
    secret: c.secret,
    warehouse,
    client,
    maxCredits: c.maxCredits,
    port: 0,
    host: "127.0.0.1",
    log: (line) => logs.push(line),
    now: () => Date.now() + (offset[0] ?? 0),
    // Configured as a server with Google credentials is (schedules are stored, never fired here):
    // its API is a closed loopback port.
    sheets: await SheetsConnector.create({
      credentials: { accessToken: "harness-unused-token" },
      rootUrl: "http://127.0.0.1:9/",
    }),
  });
  const html = createServer((_req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
  });
  await new Promise<void>((resolve) => html.listen(0, "127.0.0.1", resolve));
  const htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
  running = { emulator, client, warehouse, server, html, htmlUrl, logs };
  return { url: server.url, htmlUrl, emulatorUrl: emulator.url };
}

async function stop(): Promise<unknown> {
  const r = running;
  running = undefined;
  if (!r) return {};
  await r.server.close();
  await new Promise<void>((resolve) => r.html.close(() => resolve()));
  await r.warehouse.close().catch(() => {});
  await r.client.close();
  await r.emulator.stop();
  return { logs: r.logs };
}

function required(): Running {
  if (!running) throw new Error("test bug: the backend has not been started");
  return running;
}

/** A run beside the server, on its warehouse and emulator, with nothing reused from the store. */
async function refreshRun(pipeline: string, params: Record<string, string[]>): Promise<unknown> {
  const r = required();
  const s = await runPipelines({
    warehouse: r.warehouse,
    client: r.client,
    pipelines: [loadPipeline(pipeline)],
    params,
    refresh: true,
  });
  return { runId: s.runId, status: s.status, loads: await loadsOfRun(r.warehouse, s.runId) };
}

/** Answers into the shared buffer the main thread is blocked on (see protocol.ts for the layout). */
async function fetchInto(req: FetchRequest): Promise<void> {
  const ctl = new Int32Array(req.sab, 0, FETCH.controlInts);
  const data = new Uint8Array(req.sab, FETCH.dataOffset);
  const put = (kind: number, status: number, meta: Uint8Array, body: Uint8Array) => {
    ctl[FETCH.kind] = kind;
    ctl[FETCH.status] = status;
    ctl[FETCH.bodyLength] = body.length;
    if (kind === FETCH.tooLarge || meta.length + body.length > data.length) {
      ctl[FETCH.kind] = FETCH.tooLarge;
      ctl[FETCH.metaLength] = 0;
    } else {
      data.set(meta, 0);
      data.set(body, meta.length);
      ctl[FETCH.metaLength] = meta.length;
    }
    Atomics.store(ctl, FETCH.state, 1);
    Atomics.notify(ctl, FETCH.state);
  };
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      redirect: "manual",
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    const body = new Uint8Array(await res.arrayBuffer());
    const meta = new TextEncoder().encode(JSON.stringify(Object.fromEntries(res.headers)));
    put(body.length > req.limit ? FETCH.tooLarge : FETCH.ok, res.status, meta, body);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    const text = new TextEncoder().encode(`${err instanceof Error ? err.message : String(err)}${cause}`);
    put(FETCH.networkError, 0, new Uint8Array(), text);
  }
}

port.on("message", (c: BackendCommand) => {
  if (c.type === "fetch") {
    void fetchInto(c);
    return;
  }
  const work = async (): Promise<unknown> => {
    switch (c.type) {
      case "start":
        return start(c);
      case "stop":
        return stop();
      case "break":
        // Closing the warehouse under the server makes its next requests fail: a genuine 503 (their
        // signatures cannot be recorded).
        await running?.warehouse.close();
        return {};
      case "logs":
        return { logs: running?.logs ?? [] };
      case "clock":
        return { date: required().emulator.setDate(c.date) };
      case "refresh-run":
        return refreshRun(c.pipeline, c.params);
    }
  };
  work().then(
    (value) => port.postMessage({ id: c.id, ok: true, value }),
    (err: unknown) =>
      port.postMessage({ id: c.id, ok: false, error: err instanceof Error ? err.stack : String(err) }),
  );
});
port.postMessage({ ready: true });
