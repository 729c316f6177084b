import { describe, expect, it } from "vitest";
import { DEMO_KEYWORDS, DEMO_QUERY } from "../../cli/commands/demo.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

describe.each(WAREHOUSE_KINDS)("run, plan and the warehouse commands on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("runs a pipeline (exit 0), lists runs and tables, answers read-only SQL", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const run = await cli(
        [
          "run",
          "marketplace-search",
          "--db",
          db,
          "--param",
          "keyword=usb hub",
          "--param",
          "pages=2",
          "--json",
        ],
        env,
      );
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.out) as {
        status: string;
        counters: { callsDone: number; rowsWritten: number };
      };
      expect(summary.status).toBe("succeeded");
      expect(summary.counters.callsDone).toBe(2);

      const runs = await cli(["runs", "--db", db, "--json"]);
      expect(JSON.parse(runs.out)[0]).toMatchObject({
        status: "succeeded",
        trigger: "manual",
        calls: { done: 2 },
      });

      const tables = await cli(["tables", "--db", db, "--json"]);
      expect(JSON.parse(tables.out)).toContainEqual({
        table: "marketplace_search_results",
        rows: summary.counters.rowsWritten,
      });

      const q = await cli([
        "sql",
        "select count(*) as n from marketplace_search_results",
        "--db",
        db,
        "--json",
      ]);
      expect(Number(JSON.parse(q.out)[0].n)).toBe(summary.counters.rowsWritten);

      const write = await cli(["sql", "delete from marketplace_search_results", "--db", db]);
      expect(write.code).toBe(2);
      expect(write.err).toMatch(/read-only|readonly/i);
      const still = await cli([
        "sql",
        "select count(*) as n from marketplace_search_results",
        "--db",
        db,
        "--json",
      ]);
      expect(Number(JSON.parse(still.out)[0].n)).toBe(summary.counters.rowsWritten);
      // The key never reaches what the tool prints or stores.
      expect(run.out + run.err + runs.out).not.toContain(DEMO_KEY);
    });

    it("plans without sending anything and without a key", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const plan = await cli(
        [
          "plan",
          "marketplace-search",
          "patent-search",
          "--db",
          db,
          "--param",
          "keyword=a",
          "--param",
          "keyword=b",
          "--param",
          "pages=3",
          "--param",
          "q=lidar",
          "--json",
        ],
        {
          SKILL_API_KEY: undefined,
          SKILL_API_BASE_URL: emulator.url,
        },
      );
      expect(plan.code).toBe(0);
      const p = JSON.parse(plan.out) as {
        pipelines: { pipeline: string; calls: number; morePagesAtMost: number }[];
        credits: number;
        creditsAtMost: number;
      };
      expect(p.pipelines[0]).toMatchObject({ pipeline: "marketplace-search", calls: 2, morePagesAtMost: 4 });
      expect(p.credits).toBe(3);
      expect(p.creditsAtMost).toBe(9);
      expect(emulator.ledger().totalCalls).toBe(0);
    });

    it("answers bad input with exit 2 and sends nothing", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const cases = [
        ["run", "marketplace-search", "--db", db, "--param", "keyword=a", "--param", "pages=zero"],
        ["run", "marketplace-search", "--db", db, "--param", "colour=red"],
        ["run", "marketplace-search", "--db", db],
        ["run", "no-such-pipeline", "--db", db],
        ["run", "marketplace-search", "--db", db, "--param", "keyword=a", "--max-credits", "-5"],
        ["run", "marketplace-search", "--db", db, "--param", "keyword=a", "--concurrency", "0"],
        ["run", "patent-search", "--db", db, "--param", "q=x", "--param", "before=yesterday"],
        ["run", "marketplace-search", "--db", db, "--param", "keyword=a", "--prices", "/no/such/prices.yaml"],
        ["run", "marketplace-search", "--bogus-flag"],
      ];
      for (const args of cases) {
        const r = await cli(args, env);
        expect(r.code, args.join(" ")).toBe(2);
        expect(r.err.split("\n").filter(Boolean).length, args.join(" ")).toBeLessThanOrEqual(4);
        expect(r.err).not.toMatch(/\n\s+at /);
      }
      expect(emulator.ledger().totalCalls).toBe(0);
    });

    it("exits 3 at a credit ceiling and 4 on a refused key", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const keywords = ["a", "b", "c", "d", "e"].flatMap((k) => ["--param", `keyword=${k}`]);
      const ceiling = await cli(
        ["run", "marketplace-search", "--db", db, ...keywords, "--max-credits", "2"],
        {
          SKILL_API_BASE_URL: emulator.url,
          SKILL_API_KEY: DEMO_KEY,
        },
      );
      expect(ceiling.code).toBe(3);
      expect(ceiling.out).toMatch(/stopped at the --max-credits of 2 credits/);
      const refused = await cli(["run", "marketplace-search", "--db", db, "--param", "keyword=zz"], {
        SKILL_API_BASE_URL: emulator.url,
        SKILL_API_KEY: "sk-not-a-known-key-123",
      });
      expect(refused.code).toBe(4);
      expect(refused.out + refused.err).not.toContain("sk-not-a-known-key-123");
    });

    it("sets and shows the warehouse budget", async () => {
      const db = freshWarehouseUrl(kind);
      const r = await cli(["budget", "--db", db, "--daily", "50", "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)[0]).toMatchObject({ period: "daily", limit: 50, spent: 0, remaining: 50 });
      const cleared = await cli(["budget", "--db", db, "--daily", "none", "--json"]);
      expect(JSON.parse(cleared.out)[0]).toMatchObject({ period: "daily", limit: null });
    });
  });
});

describe("pipelines and demo", () => {
  it("lists the built-in pipelines", async () => {
    const r = await cli(["pipelines", "--json"]);
    const names = (JSON.parse(r.out) as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "marketplace-search",
        "patent-search",
        "patent-bibliography",
        "patent-legal-status",
      ]),
    );
  });

  it("loads the demo tables into a fresh SQLite file", async () => {
    const db = freshWarehouseUrl("sqlite");
    const r = await cli(["demo", "--db", db]);
    expect(r.code).toBe(0);
    // It names what it asks for, so its tables can be traced to their inputs.
    const keywords = DEMO_KEYWORDS.map((k) => JSON.stringify(k)).join(", ");
    expect(r.out).toContain(`marketplace-search for keywords ${keywords} (2 pages each)`);
    expect(r.out).toContain(`patent-search for query ${JSON.stringify(DEMO_QUERY)} (2 pages), then`);
    // Three keywords planned, the next pages found while it ran added to them.
    const market = /run \S+: succeeded, (\d+) calls \(3 planned \+ (\d+) next pages?, 0 from store\)/.exec(
      r.out,
    );
    expect(market, r.out).not.toBeNull();
    expect(Number(market![1])).toBe(3 + Number(market![2]));
    expect(r.out).toMatch(/marketplace_search_results\s+\d+/);
    expect(r.out).toMatch(/patent_legal_status\s+\d+/);
    const q = await cli([
      "sql",
      "select count(*) as n from patent_overview where legal_status is not null",
      "--db",
      db,
      "--json",
    ]);
    expect(Number(JSON.parse(q.out)[0].n)).toBeGreaterThan(0);
  });
});
