import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { recentRuns } from "../../store/runs.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-4f9a27c1";
const KEYWORDS = ["usb hub", "desk lamp", "monitor arm", "webcam", "keyboard"];

async function setup(kind: WarehouseKind, serverMax: number) {
  const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }] });
  const db = freshWarehouseUrl(kind);
  const mcp = await startMcp(["--db", db, "--max-credits", String(serverMax), "--concurrency", "1"], {
    SKILL_API_KEY: KEY,
    SKILL_API_BASE_URL: emulator.url,
  });
  return { emulator, db, mcp };
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(
    `skillsync mcp over stdio on ${kind}, driven by the SDK's client`,
    () => {
      it("lists its tools, plans, runs to a ceiling, queries the table, refuses a write and an oversized run", async () => {
        const { emulator, db, mcp } = await setup(kind, 10);

        const { tools } = await mcp.client.listTools();
        const names = tools.map((t) => t.name).sort();
        expect(names).toEqual([
          "budget",
          "create_watch",
          "describe_table",
          "list_alerts",
          "list_pipelines",
          "list_tables",
          "list_watches",
          "plan",
          "query",
          "remove_watch",
          "run",
          "runs",
        ]);
        for (const t of tools) expect(t.description).toMatch(/Free|Costs credits/);

        const listed = await mcp.call("list_pipelines");
        const search = listed.json.pipelines.find((p: { name: string }) => p.name === "marketplace-search");
        expect(search).toMatchObject({
          tables: ["marketplace_search_results"],
          estimatedCredits: { perCall: 1 },
          params: { keyword: { required: true, repeatable: true } },
        });

        const plan = await mcp.call("plan", {
          pipeline: "marketplace-search",
          params: { keyword: KEYWORDS },
        });
        expect(plan.isError).toBe(false);
        expect(plan.json).toMatchObject({ credits: 5, pipelines: [{ calls: 5, fromStore: 0 }] });
        expect(emulator.ledger().totalCalls).toBe(0);

        const run = await mcp.call("run", {
          pipeline: "marketplace-search",
          params: { keyword: KEYWORDS },
          maxCredits: 3,
        });
        expect(run.isError).toBe(false);
        expect(run.json).toMatchObject({
          status: "ceiling",
          credits: { spent: 3, ceiling: 3 },
          calls: { done: 3 },
        });
        expect(run.json.exitState).toMatch(/ceiling.*resume/);
        expect(emulator.ledger().totalCredits).toBe(3);
        const loaded = run.json.tables[0];
        expect(loaded).toMatchObject({ name: "marketplace_search_results" });
        expect(loaded.rows).toBeGreaterThan(0);

        const q = await mcp.call("query", {
          sql: "select keyword, count(*) as n from marketplace_search_results group by keyword order by keyword",
        });
        expect(q.isError).toBe(false);
        expect(q.json.rows).toHaveLength(3);
        expect(q.json.rows.reduce((s: number, r: { n: number | string }) => s + Number(r.n), 0)).toBe(
          loaded.rows,
        );
        expect(q.json.truncated).toBe(false);

        const cut = await mcp.call("query", { sql: "select * from marketplace_search_results", maxRows: 2 });
        expect(cut.json).toMatchObject({ rowCount: 2, truncated: true });
        expect(cut.json.note).toMatch(/cut at 2 rows/);

        for (const sql of [
          "delete from marketplace_search_results",
          "update marketplace_search_results set keyword = 'x'",
          "drop table marketplace_search_results",
          "select 1; delete from marketplace_search_results",
        ]) {
          const refused = await mcp.call("query", { sql });
          expect(refused.isError, sql).toBe(true);
          expect(refused.json.error.code).toBe("VALIDATION");
          // The shared first check says why, and the tool says what to do instead.
          expect(refused.json.error.message, sql).toMatch(/must be a read|exactly one statement/);
          expect(refused.json.error.message, sql).toMatch(
            /this tool only reads: send one SELECT.*plan and run/,
          );
        }
        const after = await mcp.call("query", {
          sql: "select count(*) as n from marketplace_search_results",
        });
        expect(Number(after.json.rows[0].n)).toBe(loaded.rows);

        const above = await mcp.call("run", {
          pipeline: "marketplace-search",
          params: { keyword: KEYWORDS },
          maxCredits: 11,
        });
        expect(above.isError).toBe(true);
        // --max-credits is the server's total: 3 of its 10 are spent.
        expect(above.json.error.message).toMatch(/11 is more than this server has left: 7 of its 10 credits/);
        expect(emulator.ledger().totalCredits).toBe(3);

        const resumed = await mcp.call("run", {
          pipeline: "marketplace-search",
          params: { keyword: KEYWORDS },
          maxCredits: 7,
        });
        expect(resumed.json).toMatchObject({ status: "succeeded", resumed: true, runId: run.json.runId });
        expect(emulator.ledger().totalCredits).toBe(5);

        const runs = await mcp.call("runs");
        expect(runs.json.runs[0]).toMatchObject({
          runId: run.json.runId,
          trigger: "mcp",
          status: "succeeded",
        });
        const budget = await mcp.call("budget");
        expect(budget.json).toMatchObject({
          server: { limit: 10, spent: 5, remaining: 5 },
          budgets: [{ period: "daily", spent: 5 }, {}],
        });

        await mcp.close();
        expect(`${mcp.transcript()}${mcp.stderr()}`).not.toContain(KEY);
        const w = await openWarehouse(db);
        try {
          const [stored] = await recentRuns(w, 1);
          expect(stored).toMatchObject({ id: run.json.runId, trigger: "mcp", status: "succeeded" });
        } finally {
          await w.close();
        }
      }, 60_000);
    },
  );
}
