import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { cli } from "../../helpers/cli.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { rows } from "../fixtures.js";
import { cliProcess, paidTwice, workerProcess } from "./processes.js";

const KEYWORDS = Array.from({ length: 100 }, (_, i) => `gadget ${i}`);
const PARAMS = { keyword: KEYWORDS, pages: ["3"] };
const paramFlags = [...KEYWORDS.flatMap((k) => ["--param", `keyword=${k}`]), "--param", "pages=3"];

const snapshot = (w: Warehouse) =>
  rows(
    w,
    "select keyword, page, item_index, asin, position from marketplace_search_results order by 1, 2, 3",
  );

describe.skipIf(unavailable("postgres"))("runs spread over worker processes (Postgres, pg-boss)", () => {
  it("3 workers, one killed with -9 mid-run: the run completes, nothing paid twice but calls in flight at the kill, tables as a clean run's", async () => {
    const { emulator, client } = await emulatorWithClient({ latencyMs: 60, jitterMs: 40 });
    const clean = await openWarehouse(freshWarehouseUrl("postgres"));
    const reference = await runPipelines({
      warehouse: clean,
      client,
      pipelines: [loadPipeline("marketplace-search")],
      params: PARAMS,
      concurrency: 8,
    });
    const calls = reference.counters.callsDone;
    // About 300 (a keyword's pages end early when the emulator has fewer results).
    expect(calls).toBeGreaterThan(250);
    const expected = await snapshot(clean);
    await clean.close();
    expect(expected.length).toBeGreaterThan(1000);
    emulator.reset();

    const db = freshWarehouseUrl("postgres");
    const workers = await Promise.all(
      [0, 1, 2].map(() => workerProcess(db, emulator.url, ["--concurrency", "4"])),
    );
    const run = cliProcess(
      [
        "run",
        "marketplace-search",
        ...paramFlags,
        "--db",
        db,
        "--workers",
        "--batch-size",
        "10",
        "--lease",
        "5",
        "--json",
      ],
      emulator.url,
    );
    // Killed once it has paid for some of its calls, with calls in flight.
    const victim = workers[0]!;
    await Promise.race([
      victim.waitFor("batch "),
      run.exited.then(() => Promise.reject(new Error(run.output()))),
    ]);
    while (emulator.ledger().calls.length < 60) await new Promise((r) => setTimeout(r, 20));
    victim.child.kill("SIGKILL");
    const end = await run.exited;
    const out = run.output();
    expect(end.code, out).toBe(0);
    const summary = JSON.parse(out.slice(out.indexOf("{")));
    expect(summary.status).toBe("succeeded");
    expect(summary.counters.callsPlanned).toBe(calls);
    expect(summary.counters.callsDone).toBe(calls);
    expect(summary.counters.rowsWritten).toBe(reference.counters.rowsWritten);

    const w = await openWarehouse(db);
    try {
      expect(await snapshot(w)).toEqual(expected);
      // Paid again only what was in flight in the killed worker (sent, or answered and not yet
      // stored): its ledger rows say interrupted, and `runs <id>` shows them.
      const interrupted = await rows<{ n: number }>(
        w,
        `select count(*) as n from skillsync_calls where run_id = '${summary.runId}' and outcome = 'interrupted'`,
      );
      const twice = paidTwice(emulator.ledger());
      expect(twice.length).toBeLessThanOrEqual(Number(interrupted[0]!.n));
      expect(Number(interrupted[0]!.n)).toBeGreaterThan(0);
      const paid = emulator.ledger().calls.filter((c) => c.credits > 0).length;
      expect(paid).toBe(calls + twice.length);
      // Every loaded call's credits are counted, and the dead worker's reserved calls at most once
      // more (reserved is counted as spent: it may have been billed).
      expect(summary.counters.creditsSpent).toBeGreaterThanOrEqual(calls);
      expect(summary.counters.creditsSpent).toBeLessThanOrEqual(calls + Number(interrupted[0]!.n));
      // Two live workers did the rest; the dead one no longer counts.
      const listed = await cli(["workers", "--db", db, "--json"]);
      const live = JSON.parse(listed.out) as { pid: number }[];
      expect(live.map((x) => x.pid).sort()).toEqual(
        workers
          .slice(1)
          .map((x) => x.child.pid)
          .sort(),
      );
    } finally {
      await w.close();
    }
    for (const x of workers.slice(1)) x.child.kill("SIGTERM");
    for (const x of workers.slice(1)) expect((await x.exited).code).toBe(0);
  }, 120_000);
});
