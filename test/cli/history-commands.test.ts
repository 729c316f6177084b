import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

interface Summary {
  runId: string;
  status: string;
  counters: { callsDone: number; callsCached: number; callsPlanned: number };
  notes: string[];
}

describe.each(WAREHOUSE_KINDS)("history, loads, refresh and changes on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("says why a run makes no call, asks again with --refresh, and writes no version for unchanged answers", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const run = async (...args: string[]) => {
        const r = await cli(["run", ...args, "--db", db, "--json"], env);
        expect(r.code, r.err).toBe(0);
        return { summary: JSON.parse(r.out) as Summary, err: r.err };
      };
      await run("patent-search", "--param", "q=lidar");
      const first = await run("patent-legal-status");
      expect(first.summary.counters.callsDone).toBeGreaterThan(0);
      const inputs = await cli([
        "sql",
        "select count(*) as n from patent_legal_status_current",
        "--db",
        db,
        "--json",
      ]);
      const patents = Number(JSON.parse(inputs.out)[0].n);
      expect(patents).toBeGreaterThan(0);

      const again = await run("patent-legal-status");
      expect(again.summary.counters.callsPlanned).toBe(0);
      const note = `patent-legal-status: 0 calls: all ${patents} inputs are fresh (asked within its freshness of 7d); --refresh asks again`;
      expect(again.summary.notes).toEqual([note]);
      const text = await cli(["run", "patent-legal-status", "--db", db], env);
      expect(text.out).toContain(`note: ${note}`);

      const paidBefore = emulator.ledger().totalCalls;
      const refreshed = await run("patent-legal-status", "--refresh");
      expect(refreshed.summary.counters.callsDone).toBe(first.summary.counters.callsDone);
      expect(emulator.ledger().totalCalls).toBe(paidBefore + first.summary.counters.callsDone);

      // The emulator answered the same: the refresh's load found every patent unchanged.
      const detail = await cli(["runs", refreshed.summary.runId, "--db", db, "--json"]);
      const loads = (JSON.parse(detail.out) as { loads: Record<string, unknown>[] }).loads;
      expect(loads).toEqual([
        expect.objectContaining({
          pipeline: "patent-legal-status",
          versionsNew: 0,
          unchanged: patents,
          closed: 0,
        }),
      ]);
      const table = await cli(["runs", refreshed.summary.runId, "--db", db]);
      expect(table.out).toMatch(
        /loads:\n\s*load\s+pipeline\s+started\s+finished\s+rows inserted\s+new versions\s+unchanged\s+closed/,
      );

      const changes = await cli(["changes", "patent_legal_status", "--db", db, "--json"]);
      const listed = JSON.parse(changes.out) as { change: string }[];
      expect(listed).toHaveLength(patents);
      expect(new Set(listed.map((c) => c.change))).toEqual(new Set(["added"]));
      const since = await cli([
        "changes",
        "patent_legal_status",
        "--since",
        String(loads[0]!["id"]),
        "--db",
        db,
      ]);
      expect(since.out).toContain("no changes in patent_legal_status since");
    });
  });
});

describe("changes: mistakes", () => {
  it("names a table that keeps no history, a bad --since and a --key that is not the key; exit 2", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const made = await cli(
      ["migrate", "--pipelines", "marketplace-search", "patent-legal-status", "patent-family", "--db", db],
      { SKILL_API_BASE_URL: emulator.url },
    );
    expect(made.code, made.err).toBe(0);
    const merge = await cli(["changes", "marketplace_search_results", "--db", db]);
    expect(merge.code).toBe(2);
    expect(merge.err).toContain('"marketplace_search_results" keeps no history');
    expect(merge.err).toContain("history tables here: patent_family, patent_legal_status");
    const since = await cli(["changes", "patent_legal_status", "--since", "last week", "--db", db]);
    expect(since.code).toBe(2);
    expect(since.err).toContain('"last week" is neither a date (YYYY-MM-DD) nor a load id');
    const key = await cli(["changes", "patent_legal_status", "--key", "legal_status=x", "--db", db]);
    expect(key.code).toBe(2);
    expect(key.err).toContain("is not a key column of patent_legal_status (its key: publication_number)");
    const hostile = await cli([
      "changes",
      "patent_legal_status",
      "--key",
      "publication_number=x' or 1=1 --",
      "--db",
      db,
      "--json",
    ]);
    expect(hostile.code).toBe(0);
    expect(JSON.parse(hostile.out)).toEqual([]);
  });
});
