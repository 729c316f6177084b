import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";
import { workerProcess } from "./processes.js";

const keywords = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ["--param", `keyword=${prefix} ${i}`]).flat();

describe.skipIf(unavailable("postgres"))("workers: chains, metrics, refusals", () => {
  it("a chained run queues each stage once the one before has loaded; tables as a local run's", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 20 });
    const local = freshWarehouseUrl("postgres");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = [
      "run",
      "patent-search",
      "patent-bibliography",
      "--param",
      "q=solid state battery",
      "--param",
      "num=20",
    ];
    expect((await cli([...args, "--db", local], env)).code).toBe(0);
    const db = freshWarehouseUrl("postgres");
    const worker = await workerProcess(db, emulator.url, ["--concurrency", "4"]);
    const r = await cli([...args, "--db", db, "--workers", "--batch-size", "1"], env);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.err).toMatch(/patent-bibliography: \d+ batch\(es\) queued for workers/);
    const q = "select publication_number, title from patent_bibliography order by 1";
    const [a, b] = await Promise.all(
      [local, db].map(async (url) => {
        const w = await openWarehouse(url);
        try {
          return await rows(w, q);
        } finally {
          await w.close();
        }
      }),
    );
    expect(b!.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(worker.output()).toMatch(/batch .* of run/);
  }, 90_000);

  it("--metrics-port serves Prometheus metrics: calls, credits, failures, queue depth, call latency", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 10 });
    const db = freshWarehouseUrl("postgres");
    const worker = await workerProcess(db, emulator.url, ["--metrics-port", "0"]);
    await worker.waitFor(/metrics on http:\/\/0\.0\.0\.0:\d+\/metrics/);
    const port = /metrics on http:\/\/0\.0\.0\.0:(\d+)\/metrics/.exec(worker.output())![1];
    const r = await cli(["run", "marketplace-search", ...keywords(6, "mat"), "--db", db, "--workers"], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.code, r.err).toBe(0);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/^skillsync_worker_calls_total\{outcome="answered"\} 6$/m);
    expect(text).toMatch(/^skillsync_worker_credits_spent_total 6$/m);
    expect(text).toMatch(/^skillsync_worker_call_failures_total 0$/m);
    expect(text).toMatch(/^skillsync_queue_depth 0$/m);
    expect(text).toMatch(/^skillsync_worker_call_duration_seconds_count 6$/m);
    expect(text).toMatch(/^skillsync_worker_call_duration_seconds_bucket\{le="0.05"\} \d+$/m);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  }, 60_000);

  it("refuses --workers, worker and workers on a SQLite warehouse, and --lease without --workers (exit 2), creating nothing", async () => {
    const db = freshWarehouseUrl("sqlite");
    const run = await cli(["run", "marketplace-search", "--param", "keyword=x", "--db", db, "--workers"], {
      SKILL_API_BASE_URL: "http://127.0.0.1:9",
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/workers need a Postgres warehouse/);
    const worker = await cli(["worker", "--db", db], {});
    expect(worker.code).toBe(2);
    expect(worker.err).toMatch(/workers need a Postgres warehouse/);
    const listed = await cli(["workers", "--db", db], {});
    expect(listed.code).toBe(2);
    expect(listed.err).toMatch(/workers need a Postgres warehouse/);
    const stray = await cli(
      ["run", "marketplace-search", "--param", "keyword=x", "--db", db, "--lease", "30"],
      {},
    );
    expect(stray.code).toBe(2);
    expect(stray.err).toMatch(/--lease goes with --workers/);
    expect(existsSync(db)).toBe(false);
  });
});
