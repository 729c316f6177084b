import pg from "pg";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { ledgerTotals } from "../../../store/run-totals.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { until } from "../../helpers/until.js";
import { freshWarehouseUrl, unavailable } from "../../helpers/warehouses.js";
import { paidTwice } from "../../reliability/support/ledger.js";
import { cliProcess } from "../distribute/processes.js";
import { rows } from "../fixtures.js";

const KEYWORDS = Array.from({ length: 12 }, (_, i) => `lamp ${i}`);
const ARGS = [
  "run",
  "marketplace-search",
  ...KEYWORDS.flatMap((k) => ["--param", `keyword=${k}`]),
  "--concurrency",
  "4",
];

/**
 * Issue 29: an answer is kept the moment it arrives, not when its load commits. Here every load
 * waits (another session holds the results table), so the answers that arrive pile up behind it;
 * the process is then killed. Each of them was committed as `answered` on arrival, and the
 * resumed run loads them from the store: none is paid twice, and the credits printed are the
 * ledger's.
 */
describe.skipIf(unavailable("postgres"))("an answer kept on arrival, on postgres", () => {
  it("survives a kill while loads wait: the resumed run loads it for 0 credits", async () => {
    const { emulator } = await emulatorWithClient({ latencyMs: 20 });
    const db = freshWarehouseUrl("postgres");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    // The warehouse and its tables exist before anything holds them.
    expect((await cli(["migrate", "--pipelines", "marketplace-search", "--db", db], env)).code).toBe(0);
    const w = await openWarehouse(db);
    const holder = new pg.Client({ connectionString: db.replace(/[?&]schema=[^&]*/, "") });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query(`lock table "${w.adapter.schema}".marketplace_search_results in exclusive mode`);
      const run = cliProcess([...ARGS, "--db", db], emulator.url);
      const answered = async () =>
        Number(
          (
            await rows<{ n: number }>(
              w,
              "select count(*) as n from skillsync_calls where outcome = 'answered'",
            )
          )[0]!.n,
        );
      // More answers than one load group takes: they arrived while the first load waited.
      await until(async () => (await answered()) >= 8, 60_000, "answers kept while loads wait");
      run.child.kill("SIGKILL");
      await run.exited;
      await holder.query("rollback");
      const kept = await answered();
      const paidBefore = emulator.ledger().calls.filter((c) => c.credits > 0).length;
      expect(paidBefore).toBeGreaterThanOrEqual(kept);

      const resumed = await cli([...ARGS, "--db", db, "--json"], env);
      expect(resumed.code, resumed.err).toBe(0);
      const summary = JSON.parse(resumed.out);
      expect(summary.resumed).toBe(true);
      // Nothing kept was asked for again; only calls cut off in flight could be.
      const twice = paidTwice(emulator.ledger().calls).paidTwice;
      const interrupted = Number(
        (
          await rows<{ n: number }>(
            w,
            "select count(*) as n from skillsync_calls where outcome = 'interrupted'",
          )
        )[0]!.n,
      );
      expect(twice.length).toBeLessThanOrEqual(interrupted);
      expect(await answered()).toBe(0);
      // Every page is there once, as a run that was never killed would have it.
      const loaded = await rows<{ n: number; pages: number }>(
        w,
        "select count(*) as n, count(distinct keyword || ':' || page) as pages from marketplace_search_results",
      );
      expect(Number(loaded[0]!.pages)).toBe(summary.counters.callsDone);
      // The credits printed are the ledger's, and the API billed no more than that.
      const totals = await ledgerTotals(w, summary.runId);
      expect(summary.counters.creditsSpent).toBe(totals.creditsSpent);
      expect(emulator.ledger().totalCredits).toBeLessThanOrEqual(totals.creditsSpent);
    } finally {
      await holder.end().catch(() => {});
      await w.close();
    }
  }, 120_000);
});
