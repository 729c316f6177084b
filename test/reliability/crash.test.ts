import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import type { Emulator, LedgerCall } from "../../emulator/index.js";
import { retryReportJob } from "../../engine/run/retry-report.js";
import { runPipelines } from "../../engine/run/runner.js";
import { ledgerTotals } from "../../store/run-totals.js";
import { runChild } from "./support/child.js";
import { type ChildSpec, pipelinesOf } from "./support/child-spec.js";
import { fastReportPipeline, inFlight } from "./support/crash-plan.js";
import { REPORT_CREATES, suiteClient, suiteEmulator } from "./support/emulator.js";
import { charged, credits, paidTwice } from "./support/ledger.js";
import { envCount, inLanes, prng } from "./support/prng.js";
import { compare, rows, type Snapshot, snapshot } from "./support/snapshot.js";
import { addFigures } from "./support/suite.js";
import { KINDS, type Kind, suiteWarehouse, unavailable } from "./support/warehouses.js";

// Several pipelines (pages, a chain over SQL inputs, an asynchronous report with pending polls),
// concurrency 4, and an emulator adding latency: killed with SIGKILL at a seeded random moment,
// then run again to the end.
const PIPELINES = [
  "marketplace-search",
  fastReportPipeline(),
  "patent-search",
  "patent-bibliography",
  "patent-legal-status",
];
const PARAMS = {
  keyword: ["usb hub", "desk lamp", "yoga mat", "phone stand"],
  pages: ["3"],
  q: ["solid state battery", "drone propeller"],
  connection: ["7"],
  start: ["2025-03-01"],
  end: ["2025-03-03"],
  // One report over the range, as these trials were planned (the built-in asks one per day by default).
  step: ["range"],
};
const EMULATOR = { reportPendingPolls: 2, reportParts: 2, reportRowsPerPart: 25 };
const LATENCY = { latencyMs: 10, jitterMs: 25 };
const CONCURRENCY = 4;
const TRIALS = envCount("RELIABILITY_CRASH_TRIALS", 50);
// Trials run side by side, each lane with its own long-lived emulator; Postgres trials wait on the
// server more than on this machine's two cores, so they take one lane more.
const lanesFor = (kind: Kind) => envCount("RELIABILITY_CRASH_LANES", kind === "postgres" ? 4 : 3);

interface Trial {
  n: number;
  seed: number;
}

describe.each(KINDS)("crash and resume on %s", (kind: Kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    const lanes: Emulator[] = [];
    let expected: Snapshot;
    let cleanCredits = 0;
    let prepareMs = 0;
    let callMs = 0;

    beforeAll(async () => {
      for (let i = 0; i < lanesFor(kind); i++)
        lanes.push(await suiteEmulator({ ...EMULATOR, ...LATENCY, seed: i + 1 }));
      // The clean run: what every trial must end with, and what it costs.
      const clean = await suiteEmulator(EMULATOR);
      const client = suiteClient(clean);
      const w = await openWarehouse(suiteWarehouse(kind, "crash_clean"));
      try {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: pipelinesOf({ pipelines: PIPELINES }),
          params: PARAMS,
          concurrency: CONCURRENCY,
        });
        expect(s.status).toBe("succeeded");
        expected = await snapshot(w);
        cleanCredits = clean.ledger().totalCredits;
      } finally {
        await w.close();
        await client.close();
        await clean.stop();
      }
      // How long the two phases of a run take in a child process here, to place the kills.
      const timing = await runChild(spec(lanes[0]!, suiteWarehouse(kind, "crash_timing")));
      expect(timing.outcome, timing.stderr).toBe("finished");
      prepareMs = timing.prepareMs;
      callMs = timing.callMs;
      lanes[0]!.reset();
    });

    afterAll(async () => {
      for (const e of lanes) await e.stop();
    });

    const spec = (emu: Emulator, db: string): ChildSpec => ({
      db,
      baseUrl: emu.url,
      pipelines: PIPELINES,
      params: PARAMS,
      concurrency: CONCURRENCY,
      maxCredits: ceiling(),
    });
    // Room for a call or two paid again after a kill, never for a run gone wrong.
    const ceiling = () => Math.ceil(cleanCredits * 1.25);

    it(`${TRIALS} trials: rows equal a clean run's, nothing paid twice, no ceiling overshot`, async () => {
      const trials: Trial[] = Array.from({ length: TRIALS }, (_, n) => ({ n, seed: 4242 + n }));
      const problems: string[] = [];
      const f = {
        trials: 0,
        killed: 0,
        killed_preparing: 0,
        resumed: 0,
        duplicates: 0,
        lost_rows: 0,
        double_paid: 0,
        inflight_at_kill: 0,
        inflight_repaid: 0,
        // The most requests one trial paid twice, and the calls it had in flight at that kill.
        inflight_repaid_trial_max: 0,
        inflight_at_kill_trial_max: 0,
        // Runs whose printed credits differ from their ledger's.
        printed_credits_off: 0,
        // Credits the warehouse's ledgers hold beyond what the emulator billed: calls cut off by a kill.
        credits_unbilled_at_kill: 0,
        // How long before the kill the emulator had answered a call that was then paid again: the
        // window in which an answer is delivered but not yet stored.
        inflight_window_ms_max: 0,
        reports_created_twice: 0,
        reports_lost_recreated: 0,
        overshoot: 0,
        charged_calls: 0,
        client_gone: 0,
      };

      await inLanes(trials, lanesFor(kind), async (trial, lane) => {
        const emu = lanes[lane]!;
        emu.reset();
        const rnd = prng(trial.seed);
        const db = suiteWarehouse(kind, `crash_${trial.n}`);
        // Most kills land among the calls; one in five while the tables are being prepared.
        const preparing = rnd() < 0.2;
        const afterMs = Math.floor(rnd() * (preparing ? prepareMs : callMs * 0.95));
        const first = await runChild(spec(emu, db), {
          kill: { after: preparing ? "started" : "run", afterMs },
        });
        const where = `${kind} trial ${trial.n} (seed ${trial.seed}, kill ${afterMs} ms after ${preparing ? "start" : "run"})`;
        if (first.outcome === "failed") problems.push(`${where}: the first run failed: ${first.stderr}`);
        if (first.outcome === "killed") f.killed++;
        if (first.outcome === "killed" && preparing) f.killed_preparing++;
        // Let answers the emulator was holding back (latency) settle: billed, or abandoned.
        await new Promise((r) => setTimeout(r, 60));
        const firstCalls: LedgerCall[] = emu.ledger().calls;

        const w = await openWarehouse(db);
        const client = suiteClient(emu);
        try {
          const reserved = (
            await rows<{ request_hash: string }>(
              w,
              "select request_hash from skillsync_calls where outcome = 'reserved'",
            ).catch(() => [])
          ).map((r) => r.request_hash);
          f.inflight_at_kill += reserved.length;
          const s = await runPipelines({
            warehouse: w,
            client,
            pipelines: pipelinesOf({ pipelines: PIPELINES }),
            params: PARAMS,
            concurrency: CONCURRENCY,
            maxCredits: ceiling(),
          });
          if (s.resumed) f.resumed++;
          const secondCalls = emu.ledger().calls.slice(firstCalls.length);
          // A create in flight at the kill may have been billed: it is never created again on its
          // own; the user retries it explicitly (`skillsync reports retry <job> --create`).
          const lost = s.failures.filter((x) => x.code === "REPORT_LOST");
          for (const _ of lost) {
            const job = await rows<{ id: number }>(
              w,
              "select id from skillsync_report_jobs where status = 'lost' order by id desc limit 1",
            );
            const r = await retryReportJob({ warehouse: w, client, ref: String(job[0]!.id), create: true });
            if (r.job.status === "done") f.reports_lost_recreated++;
            else problems.push(`${where}: the explicit re-create ended ${r.job.status}`);
          }
          const otherFailures = s.failures.filter((x) => x.code !== "REPORT_LOST");
          if (otherFailures.length)
            problems.push(
              `${where}: the resumed run failed: ${otherFailures.map((x) => x.message).join("; ")}`,
            );

          const diff = compare(expected, await snapshot(w));
          f.duplicates += diff.duplicates;
          f.lost_rows += diff.lost;
          if (diff.detail.length) problems.push(`${where}: ${diff.detail.join(", ")}`);

          const all = emu.ledger().calls;
          f.charged_calls += charged(all).length;
          f.client_gone += all.filter((c) => c.status === "client-gone").length;
          const twice = paidTwice(all);
          const flying = await inFlight(w, reserved);
          let repaid = 0;
          for (const t of twice.paidTwice) {
            // Paid twice only because the first process died between the answer and storing it.
            if (t.times === 2 && flying.has(`${t.slug}\n${t.bodyHash}`)) {
              f.inflight_repaid++;
              repaid++;
              const answered = charged(firstCalls).find(
                (c) => c.slug === t.slug && c.bodyHash === t.bodyHash,
              );
              if (answered?.at !== undefined && first.killedAt !== undefined) {
                f.inflight_window_ms_max = Math.max(f.inflight_window_ms_max, first.killedAt - answered.at);
              }
            } else {
              f.double_paid += t.times - 1;
              if (REPORT_CREATES.has(t.slug)) f.reports_created_twice++;
              problems.push(`${where}: ${t.slug} ${t.bodyHash} paid ${t.times} times`);
            }
          }

          // Paid twice only what this kill cut off: calls sent whose answers were not yet kept.
          f.inflight_repaid_trial_max = Math.max(f.inflight_repaid_trial_max, repaid);
          f.inflight_at_kill_trial_max = Math.max(f.inflight_at_kill_trial_max, reserved.length);
          if (repaid > reserved.length)
            problems.push(
              `${where}: ${repaid} requests paid twice, ${reserved.length} in flight at the kill`,
            );
          // The credits printed are the run's ledger's; the ledgers hold what the API billed, plus
          // at most the calls a kill cut off (counted: the API may have billed them).
          const own = await ledgerTotals(w, s.runId);
          if (s.counters.creditsSpent !== own.creditsSpent) {
            f.printed_credits_off++;
            problems.push(
              `${where}: printed ${s.counters.creditsSpent} credits, the ledger holds ${own.creditsSpent}`,
            );
          }
          const held = await rows<{ total: number; cut: number }>(
            w,
            "select coalesce(sum(credits), 0) as total, coalesce(sum(case when outcome = 'interrupted' then credits else 0 end), 0) as cut from skillsync_calls",
          );
          const billed = credits(all);
          const [total, cut] = [Number(held[0]!.total), Number(held[0]!.cut)];
          f.credits_unbilled_at_kill += total - billed;
          if (billed > total + 1e-9 || total - billed > cut + 1e-9)
            problems.push(
              `${where}: the ledgers hold ${total} credits (${cut} cut off), the emulator billed ${billed}`,
            );

          // Ceilings: each run within --max-credits, and every credit charged was reserved first.
          const limit = ceiling();
          for (const [name, spent] of [
            ["killed run", credits(firstCalls)],
            ["resumed run", credits(secondCalls)],
          ] as const) {
            if (spent > limit + 1e-9) {
              f.overshoot += spent - limit;
              problems.push(`${where}: the ${name} spent ${spent} > ${limit}`);
            }
          }
          const reservedCredits = await rows<{ reserved: number }>(
            w,
            "select sum(reserved) as reserved from skillsync_budgets where scope like 'daily:%'",
          );
          const accounted = Number(reservedCredits[0]?.reserved ?? 0);
          if (credits(all) > accounted + 1e-9) {
            f.overshoot += credits(all) - accounted;
            problems.push(
              `${where}: the emulator charged ${credits(all)}, the warehouse reserved ${accounted}`,
            );
          }
        } finally {
          await w.close();
          await client.close();
        }
        f.trials++;
      });

      const { trials: done, ...rest } = f;
      addFigures("crash", { [`trials_${kind}`]: done, ...rest });
      console.log(`crash ${kind}: ${JSON.stringify(f)}`);
      expect(problems).toEqual([]);
      expect(f.trials).toBe(TRIALS);
      // The kills really landed mid-work (not after the run had finished).
      expect(f.killed).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.9));
      expect(f.inflight_repaid).toBeLessThanOrEqual(f.inflight_at_kill);
    });
  });
});
