import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";
import { cliProcess, paidTwice, until, workerProcess } from "./processes.js";

const keywords = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ["--param", `keyword=${prefix} ${i}`]).flat();

const runOf = async (db: string, id: string) => {
  const w = await openWarehouse(db);
  try {
    return (
      await rows<{ status: string; stop_reason: string | null }>(
        w,
        `select status, stop_reason from skillsync_runs where id = '${id}'`,
      )
    )[0];
  } finally {
    await w.close();
  }
};

describe.skipIf(unavailable("postgres"))("workers: ceilings, draining, cancelling, chains, metrics", () => {
  it("--max-credits split over 3 workers stops at the ceiling with 0 overshoot (exit 3)", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 30, jitterMs: 30 });
    const db = freshWarehouseUrl("postgres");
    await Promise.all([0, 1, 2].map(() => workerProcess(db, emulator.url, ["--concurrency", "4"])));
    const args = ["run", "marketplace-search", ...keywords(80, "lamp"), "--param", "pages=3", "--db", db];
    const r = await cli([...args, "--workers", "--batch-size", "5", "--max-credits", "37", "--json"], {
      SKILL_API_BASE_URL: emulator.url,
      SKILL_API_KEY: DEMO_KEY,
    });
    expect(r.code, r.err).toBe(3);
    const summary = JSON.parse(r.out);
    expect(summary.status).toBe("ceiling");
    expect(summary.stopReason).toMatch(/--max-credits of 37 credits/);
    const charged = emulator.ledger().calls.reduce((n, c) => n + c.credits, 0);
    expect(charged).toBeLessThanOrEqual(37);
    // Stopped at the ceiling, not long before it: every worker reserved against the same one.
    expect(charged).toBeGreaterThanOrEqual(30);
    expect(summary.counters.creditsSpent).toBe(charged);
    expect(paidTwice(emulator.ledger())).toEqual([]);

    // The warehouse's daily budget holds over the workers as well.
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    expect((await cli(["budget", "--db", db, "--daily", String(charged + 11)], env)).code).toBe(0);
    const other = [
      "run",
      "marketplace-search",
      ...keywords(40, "desk"),
      "--db",
      db,
      "--workers",
      "--batch-size",
      "5",
    ];
    const daily = await cli([...other, "--json"], env);
    expect(daily.code, daily.err).toBe(3);
    expect(JSON.parse(daily.out).stopReason).toMatch(/daily budget/);
    const total = emulator.ledger().calls.reduce((n, c) => n + c.credits, 0);
    expect(total).toBeLessThanOrEqual(charged + 11);
    expect(total).toBeGreaterThanOrEqual(charged + 5);
  }, 90_000);

  it("SIGTERM drains a worker: exit 0, its calls in flight recorded; another worker finishes the batch paying nothing twice", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 300 });
    const db = freshWarehouseUrl("postgres");
    const first = await workerProcess(db, emulator.url, ["--concurrency", "2"]);
    const run = cliProcess(
      [
        "run",
        "marketplace-search",
        ...keywords(16, "kettle"),
        "--db",
        db,
        "--workers",
        "--batch-size",
        "16",
        "--json",
      ],
      emulator.url,
    );
    await until(() => emulator.ledger().calls.length >= 4);
    first.child.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
    expect(first.output()).toMatch(/stopped/);
    const paidBefore = emulator.ledger().calls.length;
    expect(paidBefore).toBeLessThan(16);
    await workerProcess(db, emulator.url, ["--concurrency", "4"]);
    expect((await run.exited).code, run.output()).toBe(0);
    const summary = JSON.parse(run.output().slice(run.output().indexOf("{")));
    expect(summary.status).toBe("succeeded");
    expect(summary.counters.callsDone).toBe(16);
    expect(summary.counters.creditsSpent).toBe(16);
    expect(emulator.ledger().calls.filter((c) => c.credits > 0)).toHaveLength(16);
    expect(paidTwice(emulator.ledger())).toEqual([]);
  }, 90_000);

  it("Ctrl-C on run --workers cancels its queued batches and marks it interrupted; running it again resumes without paying twice", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 250 });
    const db = freshWarehouseUrl("postgres");
    await workerProcess(db, emulator.url, ["--concurrency", "2"]);
    const args = [
      "run",
      "marketplace-search",
      ...keywords(24, "stool"),
      "--db",
      db,
      "--workers",
      "--batch-size",
      "4",
      "--json",
    ];
    const run = cliProcess(args, emulator.url);
    await until(() => emulator.ledger().calls.length >= 3);
    run.child.kill("SIGINT");
    expect((await run.exited).code).toBe(1);
    const summary = JSON.parse(run.output().slice(run.output().indexOf("{")));
    expect(summary.status).toBe("interrupted");
    expect((await runOf(db, summary.runId))?.status).toBe("interrupted");
    // The worker takes none of its batches any more.
    const paid = emulator.ledger().calls.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(emulator.ledger().calls.length).toBe(paid);
    expect(paid).toBeLessThan(24);

    const again = cliProcess(args, emulator.url);
    expect((await again.exited).code, again.output()).toBe(0);
    const resumed = JSON.parse(again.output().slice(again.output().indexOf("{")));
    expect(resumed.runId).toBe(summary.runId);
    expect(resumed.resumed).toBe(true);
    expect(resumed.status).toBe("succeeded");
    expect(emulator.ledger().calls.filter((c) => c.credits > 0)).toHaveLength(24);
    expect(paidTwice(emulator.ledger())).toEqual([]);
  }, 90_000);

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
