import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import type { SkillCaller } from "../../engine/extract/skill-caller.js";
import { runPipelines } from "../../engine/run/runner.js";
import { ledgerTotals } from "../../store/run-totals.js";
import { cliProcess, workerProcess } from "../engine/distribute/processes.js";
import { rows } from "../engine/fixtures.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { until } from "../helpers/until.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";
import { tempDir, writeScheduledPipeline } from "../scheduler/fixtures.js";
import { cli } from "./support/cli.js";
import { paidTwice } from "./support/ledger.js";
import { envCount, prng } from "./support/prng.js";
import { addFigures } from "./support/suite.js";

// Runs spread over `skillsync worker` processes (Postgres, pg-boss), with real processes killed,
// drained and interrupted: the run completes, ceilings hold over every worker, nothing answered
// is paid twice, and two schedulers run each tick once.

const KEYWORDS = Array.from({ length: 100 }, (_, i) => `gadget ${i}`);
const WORKER_KILLS = envCount("RELIABILITY_WORKER_KILLS", 10);

const keywords = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ["--param", `keyword=${prefix} ${i}`]).flat();

const snapshot = (w: Warehouse) =>
  rows(
    w,
    "select keyword, page, item_index, asin, position from marketplace_search_results order by 1, 2, 3",
  );

/** Three `skillsync worker` processes and a `run --workers` of marketplace-search over `keywords`, 3 pages each. */
async function onThreeWorkers(db: string, apiUrl: string, keywords: string[], batch: string[]) {
  const workers = await Promise.all([0, 1, 2].map(() => workerProcess(db, apiUrl, ["--concurrency", "4"])));
  const flags = [...keywords.flatMap((k) => ["--param", `keyword=${k}`]), "--param", "pages=3"];
  const run = cliProcess(
    ["run", "marketplace-search", ...flags, "--db", db, "--workers", ...batch, "--json"],
    apiUrl,
  );
  return { workers, run };
}

/** A clean single-process run of marketplace-search over `keywords` (3 pages): its summary and tables. */
async function cleanRun(client: SkillCaller, keywords: string[]) {
  const clean = await openWarehouse(freshWarehouseUrl("postgres"));
  try {
    const summary = await runPipelines({
      warehouse: clean,
      client,
      pipelines: [loadPipeline("marketplace-search")],
      params: { keyword: keywords, pages: ["3"] },
      concurrency: 8,
    });
    return { summary, tables: await snapshot(clean) };
  } finally {
    await clean.close();
  }
}

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

describe.skipIf(unavailable("postgres"))("workers", () => {
  it("3 workers, one killed with -9 mid-run: the run completes, nothing paid twice but calls in flight at the kill, tables as a clean run's", async () => {
    const { emulator, client } = await emulatorWithClient({ latencyMs: 60, jitterMs: 40 });
    const { summary: reference, tables: expected } = await cleanRun(client, KEYWORDS);
    const calls = reference.counters.callsDone;
    // About 300 (a keyword's pages end early when the emulator has fewer results).
    expect(calls).toBeGreaterThan(250);
    expect(expected.length).toBeGreaterThan(1000);
    emulator.reset();

    const db = freshWarehouseUrl("postgres");
    const { workers, run } = await onThreeWorkers(db, emulator.url, KEYWORDS, [
      "--batch-size",
      "10",
      "--lease",
      "5",
    ]);
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
      const twice = paidTwice(emulator.ledger().calls).paidTwice;
      expect(twice.length).toBeLessThanOrEqual(Number(interrupted[0]!.n));
      expect(Number(interrupted[0]!.n)).toBeGreaterThan(0);
      const paid = emulator.ledger().calls.filter((c) => c.credits > 0).length;
      expect(paid).toBe(calls + twice.length);
      addFigures("workers", {
        workers: 3,
        killed: 1,
        calls,
        requests_paid_twice: twice.length,
        interrupted_at_kill: Number(interrupted[0]!.n),
      });
      // Every loaded call's credits are counted, and the dead worker's reserved calls at most once
      // more (reserved is counted as spent: it may have been billed).
      expect(summary.counters.creditsSpent).toBeGreaterThanOrEqual(calls);
      expect(summary.counters.creditsSpent).toBeLessThanOrEqual(calls + Number(interrupted[0]!.n));
      // The credits the coordinator printed are the ledger's, as `skillsync runs <id>` shows them.
      const ledger = (await ledgerTotals(w, summary.runId)).creditsSpent;
      expect(summary.counters.creditsSpent).toBe(ledger);
      const shown = JSON.parse((await cli(["runs", summary.runId, "--db", db, "--json"])).out);
      expect(shown.run.credits.spent).toBe(ledger);
      expect(shown.pipelines.reduce((n: number, p: { credits: number }) => n + p.credits, 0)).toBe(ledger);
      // Above the API's bill only by the calls the kill cut off that the API did not bill (the
      // emulator bills no call whose client went away): possibly billed, so counted.
      const cutOff = await rows<{ credits: number }>(
        w,
        `select coalesce(sum(credits), 0) as credits from skillsync_calls where run_id = '${summary.runId}' and outcome = 'interrupted'`,
      );
      const billed = emulator.ledger().totalCredits;
      expect(ledger).toBeGreaterThanOrEqual(billed);
      expect(ledger - billed).toBeLessThanOrEqual(Number(cutOff[0]!.credits));
      console.log(
        `worker kill: printed ${summary.counters.creditsSpent}, ledger ${ledger}, billed ${billed}`,
      );
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
  it(`${WORKER_KILLS} trials: one of 3 workers killed -9 at a random moment; paid twice only what it had in flight, credits as the ledger's`, async () => {
    const { emulator, client } = await emulatorWithClient({ latencyMs: 40, jitterMs: 40 });
    const trialKeywords = KEYWORDS.slice(0, 40);
    const { summary: reference, tables: expected } = await cleanRun(client, trialKeywords);
    const calls = reference.counters.callsDone;
    const rnd = prng(9191);
    const f = { trials: 0, paid_twice: 0, paid_twice_trial_max: 0, in_flight: 0, window_ms_max: 0 };
    const problems: string[] = [];
    for (let trial = 0; trial < WORKER_KILLS; trial++) {
      emulator.reset();
      const db = freshWarehouseUrl("postgres");
      const { workers, run } = await onThreeWorkers(db, emulator.url, trialKeywords, [
        "--batch-size",
        "8",
        "--lease",
        "5",
      ]);
      const victim = workers[Math.floor(rnd() * 3)]!;
      const after = 5 + Math.floor(rnd() * calls * 0.7);
      await Promise.race([
        until(async () => emulator.ledger().calls.length >= after, 60_000, `${after} calls paid`),
        run.exited.then(() => Promise.reject(new Error(`the run ended early: ${run.output().slice(-2000)}`))),
      ]);
      const killedAt = Date.now();
      victim.child.kill("SIGKILL");
      const end = await run.exited;
      const where = `trial ${trial} (killed after ${after} calls)`;
      if (end.code !== 0) problems.push(`${where}: exit ${end.code}: ${run.output().slice(-500)}`);
      const out = run.output();
      const summary = JSON.parse(out.slice(out.indexOf("{")));
      const w = await openWarehouse(db);
      try {
        if (JSON.stringify(await snapshot(w)) !== JSON.stringify(expected))
          problems.push(`${where}: the tables differ from a clean run's`);
        // The run's counts add up over every attempt, the killed worker's carried ones included.
        const { callsDone, rowsWritten } = summary.counters;
        if (callsDone !== calls || rowsWritten !== reference.counters.rowsWritten)
          problems.push(
            `${where}: ${callsDone} calls done and ${rowsWritten} rows counted, a clean run ${calls} and ${reference.counters.rowsWritten}`,
          );
        const cut = await rows<{ n: number; credits: number }>(
          w,
          `select count(*) as n, coalesce(sum(credits), 0) as credits from skillsync_calls where run_id = '${summary.runId}' and outcome = 'interrupted'`,
        );
        const inFlight = Number(cut[0]!.n);
        const all = emulator.ledger().calls;
        const twice = paidTwice(all).paidTwice;
        // Paid twice only what the killed worker had sent and not yet kept: its calls left reserved.
        if (twice.length > inFlight)
          problems.push(`${where}: ${twice.length} paid twice, ${inFlight} in flight at the kill`);
        for (const t of twice) {
          const first = all.find((c) => c.slug === t.slug && c.bodyHash === t.bodyHash && c.credits > 0);
          if (first?.at !== undefined) f.window_ms_max = Math.max(f.window_ms_max, killedAt - first.at);
        }
        // The credits printed are the ledger's; the API billed those, less calls cut off unanswered.
        const totals = await ledgerTotals(w, summary.runId);
        const billed = emulator.ledger().totalCredits;
        if (summary.counters.creditsSpent !== totals.creditsSpent)
          problems.push(`${where}: printed ${summary.counters.creditsSpent}, ledger ${totals.creditsSpent}`);
        if (billed > totals.creditsSpent || totals.creditsSpent - billed > Number(cut[0]!.credits))
          problems.push(
            `${where}: billed ${billed}, ledger ${totals.creditsSpent}, cut off ${cut[0]!.credits}`,
          );
        f.trials++;
        f.paid_twice += twice.length;
        f.paid_twice_trial_max = Math.max(f.paid_twice_trial_max, twice.length);
        f.in_flight += inFlight;
      } finally {
        await w.close();
      }
      for (const x of workers) x.child.kill("SIGKILL");
      await Promise.all(workers.map((x) => x.exited));
    }
    addFigures("workers", {
      kill_trials: f.trials,
      kill_trials_paid_twice: f.paid_twice,
      kill_trials_paid_twice_trial_max: f.paid_twice_trial_max,
      kill_trials_in_flight: f.in_flight,
      kill_trials_window_ms_max: f.window_ms_max,
    });
    console.log(`worker kills: ${JSON.stringify(f)}`);
    expect(problems).toEqual([]);
    expect(f.trials).toBe(WORKER_KILLS);
  }, 900_000);

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
    expect(paidTwice(emulator.ledger().calls).paidTwice).toEqual([]);
    addFigures("workers", {
      ceiling_over_3_workers: 37,
      ceiling_charged: charged,
      ceiling_overshoot: Math.max(0, charged - 37),
    });

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
    await until(async () => emulator.ledger().calls.length >= 4, 30_000, "4 calls paid");
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
    expect(paidTwice(emulator.ledger().calls).paidTwice).toEqual([]);
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
    await until(async () => emulator.ledger().calls.length >= 3, 30_000, "3 calls paid");
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
    expect(paidTwice(emulator.ledger().calls).paidTwice).toEqual([]);
  }, 90_000);

  it("two scheduler processes on one warehouse: each tick is queued and run once, by the workers, its history kept", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 50 });
    const db = freshWarehouseUrl("postgres");
    const file = writeScheduledPipeline(tempDir(), { cron: "*/2 * * * * *" });
    const worker = await workerProcess(db, emulator.url, ["--concurrency", "2"]);
    const schedulers = [0, 1].map(() =>
      cliProcess(["schedule", file, "--db", db, "--workers"], emulator.url),
    );
    await Promise.all(schedulers.map((s) => s.waitFor("running; stop with SIGTERM")));
    const w = await openWarehouse(db);
    try {
      const finished = () =>
        rows<{ n: number }>(
          w,
          "select count(*) as n from skillsync_schedule_ticks where run_status = 'succeeded'",
        );
      await until(async () => Number((await finished())[0]!.n) >= 3, 30_000, "3 ticks run");
      for (const s of schedulers) s.child.kill("SIGTERM");
      for (const s of schedulers) expect((await s.exited).code, s.output()).toBe(0);

      const ticks = await rows<{ tick_at: string; run_id: string | null; run_status: string | null }>(
        w,
        "select tick_at, run_id, run_status from skillsync_schedule_ticks where status = 'fired' order by tick_at",
      );
      const ran = ticks.filter((t) => t.run_status !== null);
      expect(ran.filter((t) => t.run_status === "succeeded").length).toBeGreaterThanOrEqual(3);
      // A tick going when the schedulers stopped is recorded interrupted.
      for (const t of ran) expect(["succeeded", "interrupted"]).toContain(t.run_status);
      // One run per tick, each a scheduled one whose call a worker made.
      const runs = await rows<{ id: string }>(w, "select id from skillsync_runs where trigger = 'schedule'");
      expect(runs.map((r) => r.id).sort()).toEqual(ran.map((t) => t.run_id).sort());
      const paid = emulator.ledger().calls.filter((c) => c.credits > 0).length;
      const succeeded = ran.filter((t) => t.run_status === "succeeded");
      expect(paid).toBeGreaterThanOrEqual(succeeded.length);
      expect(paid).toBeLessThanOrEqual(runs.length);
      for (const r of succeeded) expect(worker.output()).toContain(`of run ${r.run_id}`);
    } finally {
      await w.close();
    }
  }, 90_000);
});
