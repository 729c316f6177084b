import { describe, expect, it } from "vitest";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { tablesMadeBy } from "../../engine/run/make-tables.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

async function tableNames(db: string): Promise<string[]> {
  const r = await cli(["tables", "--db", db, "--json"]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { table: string }[]).map((t) => t.table).sort();
}

describe.each(WAREHOUSE_KINDS)("a warehouse holds the tables of what ran, on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("migrate makes none; a marketplace run makes only its tables and views", async () => {
      const db = freshWarehouseUrl(kind);
      const migrate = await cli(["migrate", "--db", db]);
      expect(migrate.code, migrate.err).toBe(0);
      expect(await tableNames(db)).toEqual([]);

      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const run = await cli(["run", "marketplace-search", "--param", "keyword=lamp", "--db", db], env);
      expect(run.code, run.err).toBe(0);
      const names = await tableNames(db);
      expect(names).toEqual(
        ["marketplace_search_results", "marketplace_price_history", "marketplace_rank_history"].sort(),
      );
      expect(names).toEqual([...tablesMadeBy([loadPipeline("marketplace-search")])].sort());
    }, 60_000);

    it("a chained pipeline makes the tables its input and views read, empty, and runs", async () => {
      const db = freshWarehouseUrl(kind);
      const { emulator } = await emulatorWithClient();
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      // patent-legal-status's input reads patent_bibliography and patent_search_results, its
      // patent_overview view patent_bibliography: those are made, empty; patent-bibliography's
      // own input and the other pipelines' tables are not.
      const run = await cli(
        ["run", "patent-legal-status", "--param", "patent=US11234567B2", "--db", db],
        env,
      );
      expect(run.code, run.err).toBe(0);
      const names = await tableNames(db);
      expect(names).toContain("patent_legal_status");
      expect(names).toContain("patent_overview");
      expect(names).toContain("patent_bibliography");
      expect(names).toContain("patent_search_results");
      expect(names).not.toContain("patent_family");
      expect(names).not.toContain("patent_cited_by");
      expect(names.filter((t) => t.startsWith("marketplace_"))).toEqual([]);
      expect(names).toEqual([...tablesMadeBy([loadPipeline("patent-legal-status")])].sort());
    }, 60_000);

    it("migrate --pipelines makes chosen pipelines' tables ahead, and a typo makes nothing", async () => {
      const db = freshWarehouseUrl(kind);
      const typo = await cli(["migrate", "--pipelines", "marketplace-serch", "--db", db]);
      expect(typo.code).toBe(2);
      expect(typo.err).toContain("marketplace-serch");
      const ahead = await cli(["migrate", "--pipelines", "marketplace-search", "patent-family", "--db", db]);
      expect(ahead.code, ahead.err).toBe(0);
      expect(ahead.out).toContain("tables and views of marketplace-search, patent-family:");
      const names = await tableNames(db);
      const expected = tablesMadeBy([loadPipeline("marketplace-search"), loadPipeline("patent-family")]);
      expect(names).toEqual([...expected].sort());
      expect(names).toContain("patent_family_current");
    }, 60_000);
  });
});
