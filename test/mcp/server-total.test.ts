import { describe, expect, it } from "vitest";
import { ESTIMATED_NOTE } from "../../mcp/tools/status.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import {
  freshWarehouseUrl,
  unavailable,
  WAREHOUSE_KINDS,
  type WarehouseKind,
} from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

const KEY = "sk-mcp-test-secret-total-5c1d";

const keywords = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

async function setup(kind: WarehouseKind) {
  const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }], latencyMs: 2 });
  const db = freshWarehouseUrl(kind);
  const env = { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: emulator.url };
  const start = (maxCredits: number) =>
    startMcp(["--db", db, "--max-credits", String(maxCredits), "--concurrency", "2"], env);
  return { emulator, start };
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp --max-credits is the server's total, on ${kind}`, () => {
    it("ten runs one after another spend at most 20 credits together; a second server keeps its own", async () => {
      const { emulator, start } = await setup(kind);
      const mcp = await start(20);
      const answers = [];
      for (let r = 0; r < 10; r++) {
        // Each run could spend 6 and may spend 4: five of them fill the total, the rest are refused.
        answers.push(
          await mcp.call("run", {
            pipeline: "marketplace-search",
            params: { keyword: keywords(`seq${r}`, 6) },
            maxCredits: 4,
          }),
        );
      }
      expect(emulator.ledger().totalCredits).toBe(20);
      expect(answers.slice(0, 5).map((a) => a.json.credits)).toEqual([
        { spent: 4, ceiling: 4, serverLeft: 16, estimated: true, note: ESTIMATED_NOTE },
        { spent: 4, ceiling: 4, serverLeft: 12, estimated: true, note: ESTIMATED_NOTE },
        { spent: 4, ceiling: 4, serverLeft: 8, estimated: true, note: ESTIMATED_NOTE },
        { spent: 4, ceiling: 4, serverLeft: 4, estimated: true, note: ESTIMATED_NOTE },
        { spent: 4, ceiling: 4, serverLeft: 0, estimated: true, note: ESTIMATED_NOTE },
      ]);
      for (const refused of answers.slice(5)) {
        expect(refused.isError).toBe(true);
        expect(refused.json.error.message).toMatch(
          /this server has spent all 20 credits it may \(--max-credits is the total of all the runs this server starts/,
        );
      }
      const budget = await mcp.call("budget");
      expect(budget.json.server).toMatchObject({ limit: 20, spent: 20, remaining: 0 });
      const listed = await mcp.call("list_pipelines");
      expect(listed.json).toMatchObject({ serverMaxCredits: 20, serverCreditsLeft: 0 });

      // Another server on the same warehouse has a total of its own; the first stays spent.
      const other = await start(3);
      const more = await other.call("run", {
        pipeline: "marketplace-search",
        params: { keyword: keywords("other", 5) },
        maxCredits: 3,
      });
      expect(more.json).toMatchObject({ status: "ceiling", credits: { spent: 3, serverLeft: 0 } });
      expect(emulator.ledger().totalCredits).toBe(23);
      const again = await mcp.call("run", {
        pipeline: "marketplace-search",
        params: { keyword: keywords("again", 1) },
        maxCredits: 1,
      });
      expect(again.isError).toBe(true);
      expect(emulator.ledger().totalCredits).toBe(23);
    }, 120_000);

    it("ten runs sent at once spend at most 20 credits together", async () => {
      const { emulator, start } = await setup(kind);
      const mcp = await start(20);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, r) =>
          mcp.call("run", {
            pipeline: "marketplace-search",
            params: { keyword: keywords(`par${r}`, 5) },
            maxCredits: 5,
          }),
        ),
      );
      expect(emulator.ledger().totalCredits).toBeLessThanOrEqual(20);
      expect(emulator.ledger().totalCredits).toBe(20);
      const ran = answers.filter((a) => !a.isError);
      expect(ran).toHaveLength(4);
      expect(ran.reduce((sum, a) => sum + a.json.credits.spent, 0)).toBe(20);
      for (const refused of answers.filter((a) => a.isError)) {
        expect(refused.json.error.message).toMatch(/spent all 20 credits/);
      }
      expect((await mcp.call("budget")).json.server).toMatchObject({ spent: 20, remaining: 0 });
    }, 120_000);
  });
}
