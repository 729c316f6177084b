import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

const RUN = ["run", "marketplace-search", "--param", "keyword=desk mat", "--param", "keyword=cable tray"];

describe.each(WAREHOUSE_KINDS)("runs you can read on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("a resumed run's totals cover every part, and runs <id> shows it per pipeline", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const args = [...RUN, "--param", "pages=3", "--db", db, "--json"];
      // The first part stops at its ceiling after 2 of the 6 calls; the second finishes the run.
      const first = await cli([...args, "--max-credits", "2", "--concurrency", "1"], env);
      expect(first.code).toBe(3);
      const second = await cli(args, env);
      expect(second.code).toBe(0);
      const runId = JSON.parse(second.out).runId as string;
      expect(JSON.parse(second.out).resumed).toBe(true);
      expect(JSON.parse(first.out).runId).toBe(runId);

      const charged = emulator.ledger().totalCredits;
      expect(charged).toBe(6);
      const loaded = await cli([
        "sql",
        "select count(*) as n from marketplace_search_results",
        "--db",
        db,
        "--json",
      ]);
      const rows = Number(JSON.parse(loaded.out)[0].n);

      const list = JSON.parse((await cli(["runs", "--db", db, "--json"])).out);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ runId, status: "succeeded", calls: { cached: 0 } });
      expect(list[0].credits.spent).toBe(charged);
      expect(list[0].rows.written).toBe(rows);

      const detail = JSON.parse((await cli(["runs", runId, "--db", db, "--json"])).out);
      expect(detail.pipelines).toEqual([
        expect.objectContaining({
          pipeline: "marketplace-search",
          calls: 6,
          paid: 6,
          fromStore: 0,
          fromAnotherRun: 0,
          failed: 0,
          credits: charged,
          rows,
          rejects: 0,
          failures: [],
        }),
      ]);

      const text = await cli(["runs", runId, "--db", db]);
      expect(text.code).toBe(0);
      expect(text.out).toContain(`run ${runId} · succeeded`);
      expect(text.out).toMatch(/marketplace-search\s+6\s+6\s+0\s+0\s+0\s+6/);
    });

    it("runs <id> names the failures with their messages, and an unknown id is a usage error", async () => {
      const { emulator } = await emulatorWithClient({ errorRate: 1 });
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const run = await cli([...RUN, "--db", db, "--json"], env);
      expect(run.code).toBe(1);
      const runId = JSON.parse(run.out).runId as string;
      const detail = JSON.parse((await cli(["runs", runId, "--db", db, "--json"])).out);
      const [p] = detail.pipelines;
      expect(p.failed + p.ambiguous).toBe(p.calls);
      expect(p.failures.length).toBeGreaterThan(0);
      expect(p.failures[0].message.length).toBeGreaterThan(0);
      const text = await cli(["runs", runId, "--db", db]);
      expect(text.out).toMatch(/failed: marketplace-search: \S+ /);

      const unknown = await cli(["runs", "r-nope", "--db", db]);
      expect(unknown.code).toBe(2);
      expect(unknown.err).toContain('no run "r-nope"');
    });
  });
});
