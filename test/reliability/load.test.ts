import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SkillClient } from "../../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { Emulator } from "../../emulator/index.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import { type SkillsyncServer, signedHeaders, startServer } from "../../server/index.js";
import { suiteClient, suiteEmulator } from "./support/emulator.js";
import { envCount, prng } from "./support/prng.js";
import { SERVER_SECRET } from "./support/secrets.js";
import { rows } from "./support/snapshot.js";
import { addFigures, keepOutput } from "./support/suite.js";
import { suiteWarehouse } from "./support/warehouses.js";

// The server under 200 concurrent requests on loopback (table pages, run lists, new runs), all sent
// at once and bounded in time: every request gets a valid answer, runs queue as documented (one
// per pipeline at a time, at most --max-runs overall) and every accepted run reaches a final state.
const REQUESTS = envCount("RELIABILITY_LOAD_REQUESTS", 200);
const MAX_RUNS = 2;
const DEADLINE_MS = 90_000;
const FINAL = new Set(["succeeded", "warnings", "failed", "ceiling", "interrupted"]);

type Req = { method: "GET" | "POST"; path: string; body: string; kind: "page" | "runs" | "post" };

function runRequest(i: number): Record<string, unknown> {
  switch (i % 4) {
    case 0:
      return {
        pipeline: "marketplace-search",
        params: { keyword: [`load ${i}`, `load ${i} b`] },
        maxCredits: 10,
      };
    case 1:
      return { pipeline: "patent-search", params: { q: [`load query ${i}`] }, maxCredits: 10 };
    case 2:
      return { pipeline: "patent-claims", params: { patent: [`US${10_600_000 + i}B2`] }, maxCredits: 10 };
    default:
      return {
        pipeline: "ip-tro-check",
        params: { image: [`https://img.example/load-${i}.jpg`] },
        maxCredits: 10,
      };
  }
}

describe("the server under load", () => {
  let emulator: Emulator;
  let client: SkillClient;
  let w: Warehouse;
  let server: SkillsyncServer;
  const logs: string[] = [];

  beforeAll(async () => {
    emulator = await suiteEmulator({ latencyMs: 15, jitterMs: 25 });
    client = suiteClient(emulator);
    w = await openWarehouse(suiteWarehouse("sqlite", "load"));
    // A table to page through.
    await runPipelines({
      warehouse: w,
      client,
      pipelines: [loadPipeline("marketplace-search")],
      params: { keyword: ["usb hub", "desk lamp", "yoga mat", "phone stand"], pages: ["3"] },
    });
    server = await startServer({
      secret: SERVER_SECRET,
      warehouse: w,
      client,
      maxCredits: 50,
      maxRuns: MAX_RUNS,
      callConcurrency: 4,
      port: 0,
      host: "127.0.0.1",
      log: (l) => logs.push(l),
    });
  });

  afterAll(async () => {
    await server.close();
    await w.close();
    await client.close();
    await emulator.stop();
    keepOutput("server-load", logs.join("\n"));
  });

  const send = async (r: Req, signal: AbortSignal) => {
    const headers = {
      ...(r.body ? { "content-type": "application/json" } : {}),
      ...signedHeaders(SERVER_SECRET, { method: r.method, pathWithQuery: r.path, body: r.body }),
    };
    const res = await fetch(`${server.url}${r.path}`, {
      method: r.method,
      headers,
      signal,
      ...(r.method === "POST" ? { body: r.body } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  };

  it(`${REQUESTS} concurrent requests: all answered, runs queued as documented, none lost`, async () => {
    const rnd = prng(777);
    const requests: Req[] = Array.from({ length: REQUESTS }, (_, i): Req => {
      const r = rnd();
      if (r < 0.5) {
        const limit = 1 + Math.floor(rnd() * 100);
        const offset = Math.floor(rnd() * 200);
        return {
          method: "GET",
          path: `/tables/marketplace_search_results?limit=${limit}&offset=${offset}&nonce=${i}`,
          body: "",
          kind: "page",
        };
      }
      if (r < 0.75) return { method: "GET", path: `/runs?nonce=${i}`, body: "", kind: "runs" };
      return { method: "POST", path: "/runs", body: JSON.stringify(runRequest(i)), kind: "post" };
    });
    const signal = AbortSignal.timeout(DEADLINE_MS);
    const problems: string[] = [];

    // Watch the queue from the inside while the requests are served.
    let watching = true;
    let maxRunning = 0;
    const watcher = (async () => {
      while (watching) {
        const running = server.queue.list().filter((j) => j.status === "running");
        maxRunning = Math.max(maxRunning, running.length);
        const pipelines = running.map((j) => j.pipeline);
        if (new Set(pipelines).size !== pipelines.length)
          problems.push(`two runs of one pipeline at once: ${pipelines}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const started = performance.now();
    const answers = await Promise.all(
      requests.map((r) =>
        send(r, signal).catch((err: unknown) => ({ status: 0, json: undefined, text: String(err) })),
      ),
    );
    const answeredMs = performance.now() - started;
    answers.forEach((a, i) => {
      const r = requests[i]!;
      keepOutput("load-answers", `${r.method} ${r.path} ${a.status} ${a.text.slice(0, 200)}`);
      const want = r.kind === "post" ? 202 : 200;
      if (a.status !== want || a.json === undefined)
        problems.push(`${r.method} ${r.path}: ${a.status} ${a.text.slice(0, 200)}`);
    });
    const accepted = answers
      .filter((_, i) => requests[i]!.kind === "post")
      .map((a) => (a.json as { runId?: string } | undefined)?.runId)
      .filter((id): id is string => typeof id === "string");

    // Every accepted run reaches a final state (asked through the API, as a client would).
    const until = Date.now() + DEADLINE_MS;
    let jobs: {
      runId: string;
      status: string;
      pipeline: string;
      startedAt: string;
      finishedAt: string;
      warehouseRunId: string;
    }[] = [];
    let poll = 0;
    for (;;) {
      const list = await send(
        { method: "GET", path: `/runs?poll=${poll++}`, body: "", kind: "runs" },
        signal,
      );
      jobs = (list.json as { runs: typeof jobs }).runs.filter((j) => accepted.includes(j.runId));
      if (jobs.length === accepted.length && jobs.every((j) => FINAL.has(j.status))) break;
      if (Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    watching = false;
    await watcher;

    const lost = accepted.filter((id) => !jobs.some((j) => j.runId === id && FINAL.has(j.status)));
    for (const id of lost) problems.push(`run ${id} did not reach a final state`);
    const notOk = jobs.filter((j) => j.status !== "succeeded");
    for (const j of notOk) problems.push(`run ${j.runId} (${j.pipeline}) ended ${j.status}`);
    // Queued as documented: a pipeline's runs one after another, at most MAX_RUNS at once.
    const spans = jobs.map((j) => ({
      p: j.pipeline,
      s: Date.parse(j.startedAt),
      f: Date.parse(j.finishedAt),
    }));
    for (const a of spans) {
      const atOnce = spans.filter((b) => b.s <= a.s && a.s < b.f);
      if (atOnce.length > MAX_RUNS)
        problems.push(`${atOnce.length} runs at once at ${new Date(a.s).toISOString()}`);
      if (atOnce.filter((b) => b.p === a.p).length > 1) problems.push(`two ${a.p} runs at once`);
    }
    // And the warehouse has each of them, finished.
    const stored = await rows<{ id: string; status: string }>(
      w,
      "select id, status from skillsync_runs where trigger = 'server'",
    );
    const byId = new Map(stored.map((r) => [r.id, r.status]));
    for (const j of jobs)
      if (!FINAL.has(byId.get(j.warehouseRunId) ?? ""))
        problems.push(`run ${j.runId} is not finished in the warehouse`);

    const f = {
      requests: REQUESTS,
      answered: answers.filter((a) => a.status >= 200 && a.status < 500 && a.json !== undefined).length,
      server_errors: answers.filter((a) => a.status >= 500).length,
      runs_accepted: accepted.length,
      runs_final: accepted.length - lost.length,
      runs_lost: lost.length,
      max_running_max: maxRunning,
      answered_ms_max: Math.round(answeredMs),
    };
    addFigures("load", f);
    console.log(`load: ${JSON.stringify(f)}`);
    expect(problems.slice(0, 20)).toEqual([]);
    expect(f.answered).toBe(REQUESTS);
    expect(accepted.length).toBeGreaterThan(REQUESTS / 10);
    // The queue really filled up: runs had to wait for one another.
    expect(maxRunning).toBe(MAX_RUNS);
  });
});
