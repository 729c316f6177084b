import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { signedHeaders } from "../../server/index.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { Backend } from "./harness/backend-client.js";
import { GasProject } from "./harness/project.js";

export const SECRET = "apps-script-test-secret-0123456789abcdef-XYZ";

export interface AddonEnv {
  project: GasProject;
  /** The real skillsync serve the script talks to (loopback, in the backend worker). */
  url: string;
  /** A plain HTTP server answering 502 with HTML, like a proxy whose upstream is down. */
  htmlUrl: string;
  backend: Backend;
  /** The server's warehouse (a SQLite file), for runs made beside it (the CLI, the scheduler). */
  warehouseUrl: string;
  /** The emulator behind the server, for its ledger of calls and credits (GET /__emulator/ledger). */
  emulatorUrl: string;
  /** A signed request from the test itself, on the simulated clock. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Starts a run through the server and waits until it has finished. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  runPipeline(pipeline: string, params: Record<string, unknown>, maxCredits?: number): Promise<any>;
}

/**
 * One backend worker per test file; per test a fresh SQLite warehouse, emulator and server, and a
 * fresh project (spreadsheet, properties, triggers). After every test: no execution was killed by the
 * time limit, and the secret appears nowhere a person or a log could read it.
 */
export function useAddon(): { start(o?: { settings?: boolean }): Promise<AddonEnv> } {
  let backend: Backend | undefined;
  const projects: GasProject[] = [];
  beforeAll(async () => {
    backend = await Backend.start();
  }, 60_000);
  afterAll(async () => {
    await backend?.close();
  });
  afterEach(async () => {
    const logs = await backend!.command<{ logs?: string[] }>({ type: "stop" });
    for (const p of projects.splice(0)) {
      expect(p.executions.filter((e) => e.killed).map((e) => e.entry)).toEqual([]);
      expect(p.visibleText()).not.toContain(SECRET);
      expect(p.logs.join("\n")).not.toContain(SECRET);
    }
    expect((logs.logs ?? []).join("\n")).not.toContain(SECRET);
  });

  return {
    async start(o = {}) {
      const b = backend!;
      const project = new GasProject(b);
      projects.push(project);
      const warehouseUrl = freshWarehouseUrl("sqlite");
      const { url, htmlUrl, emulatorUrl } = await b.command<{
        url: string;
        htmlUrl: string;
        emulatorUrl: string;
      }>({
        type: "start",
        warehouseUrl,
        secret: SECRET,
        maxCredits: 50,
        clock: project.clock.buffer,
      });
      const opened = project.open();
      expect(opened.error).toBeUndefined();
      if (o.settings !== false) project.call("saveSettings", { serverUrl: url, secret: SECRET });
      let nonce = 0;
      const api: AddonEnv["api"] = async (method, target, body) => {
        // Each signature is single-use: the nonce keeps two identical requests in one second apart.
        const path = `${target}${target.includes("?") ? "&" : "?"}nonce=t${nonce++}`;
        const text = body === undefined ? "" : JSON.stringify(body);
        const timestamp = Math.floor(project.clock.now() / 1000);
        const headers = {
          ...(text ? { "content-type": "application/json" } : {}),
          ...signedHeaders(SECRET, { method, pathWithQuery: path, body: text, timestamp }),
        };
        const res = await fetch(`${url}${path}`, { method, headers, ...(text ? { body: text } : {}) });
        return { status: res.status, json: await res.json() };
      };
      const runPipeline: AddonEnv["runPipeline"] = async (pipeline, params, maxCredits = 20) => {
        const post = await api("POST", "/runs", { pipeline, params, maxCredits });
        expect(post.status).toBe(202);
        for (;;) {
          const r = await api("GET", `/runs/${post.json.runId}`);
          if (r.json.status === "failed") throw new Error(`run failed: ${JSON.stringify(r.json.errors)}`);
          if (!["queued", "running"].includes(r.json.status)) return r.json;
          await new Promise((res) => setTimeout(res, 20));
        }
      };
      return { project, url, htmlUrl, backend: b, warehouseUrl, emulatorUrl, api, runPipeline };
    },
  };
}

/** Waits (really) between polls, as the sidebar does between its google.script.run calls. */
export const pause = (ms: number) => new Promise((res) => setTimeout(res, ms));
