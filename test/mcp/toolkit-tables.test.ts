import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

describe.each(WAREHOUSE_KINDS)("MCP query and the toolkit's own tables, on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("query reads what list_tables shows, and refuses the toolkit's tables however they are reached", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_KEY: DEMO_KEY, SKILL_API_BASE_URL: emulator.url };
      const run = await cli(["run", "marketplace-search", "--param", "keyword=desk", "--db", db], env);
      expect(run.code, run.err).toBe(0);
      // A view of the user's own over the ledger: the plan sees through it.
      const w = await openWarehouse(db);
      try {
        await sql`create view ledger_copy as select * from skillsync_calls`.execute(w.db);
      } finally {
        await w.close();
      }

      const mcp = await startMcp(["--db", db, "--max-credits", "5"], env);
      const listed = (await mcp.call("list_tables")).json.tables.map((t: { name: string }) => t.name);
      expect(listed).toContain("marketplace_search_results");
      expect(listed.filter((t: string) => t.startsWith("skillsync_"))).toEqual([]);

      const ok = await mcp.call("query", { sql: "select count(*) as n from marketplace_search_results" });
      expect(ok.isError, ok.text).toBe(false);
      expect(Number(ok.json.rows[0].n)).toBeGreaterThan(0);

      for (const text of [
        "select count(*) from skillsync_calls",
        'select * from "skillsync_runs" r join marketplace_search_results m on 1 = 1',
        "with x as (select id from skillsync_loads) select count(*) from x",
        "select (select max(id) from skillsync_loads) as last_load",
        "select * from ledger_copy",
      ]) {
        const refused = await mcp.call("query", { sql: text });
        expect(refused.isError, text).toBe(true);
        expect(refused.json.error.message, text).toMatch(/reads the toolkit's own skillsync_\w+/);
        expect(refused.json.error.message, text).toContain("list_tables");
      }
      // A statement the database cannot plan is refused for what it is.
      const typo = await mcp.call("query", { sql: "select * from no_such_table" });
      expect(typo.isError).toBe(true);
      expect(typo.json.error.message).toMatch(/no_such_table/);
    }, 60_000);
  });
});
