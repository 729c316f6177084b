import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { setBudget } from "../../store/budget-status.js";
import { migrateToLatest } from "../../store/migrate.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { nodeEntry } from "../helpers/node-entry.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-77b1e0d2";

async function dailyBudget(db: string, credits: number): Promise<void> {
  const w = await openWarehouse(db);
  try {
    await migrateToLatest(w);
    await setBudget(w, "daily", credits);
  } finally {
    await w.close();
  }
}

describe("skillsync mcp: budgets, tables and resources", () => {
  it("stops a run at the warehouse's daily budget when it is tighter than the call's ceiling", async () => {
    const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }] });
    const db = freshWarehouseUrl("sqlite");
    await dailyBudget(db, 2);
    const mcp = await startMcp(["--db", db, "--max-credits", "50", "--concurrency", "1"], {
      SKILL_API_KEY: KEY,
      SKILL_API_BASE_URL: emulator.url,
    });
    const run = await mcp.call("run", {
      pipeline: "marketplace-search",
      params: { keyword: ["a", "b", "c", "d"] },
      maxCredits: 10,
    });
    expect(run.json).toMatchObject({
      status: "ceiling",
      credits: { spent: 2, ceiling: 10 },
      budgets: [{ period: "daily", limit: 2, spent: 2, remaining: 0 }, { period: "monthly" }],
    });
    expect(emulator.ledger().totalCredits).toBe(2);
    const budget = await mcp.call("budget");
    expect(budget.json.budgets[0]).toMatchObject({ limit: 2, remaining: 0 });

    const described = await mcp.call("describe_table", { table: "marketplace_search_results" });
    expect(described.json).toMatchObject({
      table: "marketplace_search_results",
      key: ["keyword", "page", "item_index", "observed_at"],
    });
    expect(described.json.rows).toBe(run.json.rows.written);
    expect(described.json.columns).toContainEqual({ name: "sponsored", type: "boolean" });
    expect(typeof described.json.example.sponsored).toBe("boolean");
    const unknown = await mcp.call("describe_table", { table: "skillsync_calls" });
    expect(unknown.isError).toBe(true);
    expect(unknown.json.error.message).toMatch(/call list_tables/);

    const { resources } = await mcp.client.listResources();
    const uri = resources.find((r) => r.name === "marketplace_search_results")?.uri;
    expect(uri).toBe("skillsync://tables/marketplace_search_results");
    expect(resources.some((r) => r.name.startsWith("skillsync_"))).toBe(false);
    const read = await mcp.client.readResource({ uri: uri! });
    const content = read.contents[0];
    const schema = JSON.parse(content && "text" in content ? content.text : "null");
    expect(schema).toMatchObject({ table: "marketplace_search_results", rows: run.json.rows.written });
    expect(schema.example).toBeUndefined();
  }, 60_000);

  it("will not start without a server ceiling or an API key, and writes nothing to stdout", () => {
    const db = freshWarehouseUrl("sqlite");
    const spawn = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, [...nodeEntry("cli/run.ts"), "mcp", "--db", db, ...args], {
        env: { PATH: process.env["PATH"] ?? "", ...env },
        input: "",
        encoding: "utf8",
        timeout: 30_000,
      });
    const noCeiling = spawn([], { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: "http://127.0.0.1:9" });
    expect(noCeiling.status).toBe(2);
    expect(noCeiling.stdout).toBe("");
    expect(noCeiling.stderr).toMatch(/--max-credits/);
    const noKey = spawn(["--max-credits", "5"], { SKILL_API_BASE_URL: "http://127.0.0.1:9" });
    expect(noKey.status).toBe(2);
    expect(noKey.stdout).toBe("");
    expect(noKey.stderr).toMatch(/SKILL_API_KEY/);
  }, 60_000);
});
