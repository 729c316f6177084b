import { describe, expect, it } from "vitest";
import { ESTIMATED_NOTE } from "../../mcp/tools/status.js";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { keywords, setup } from "./server-total-setup.js";

// Two `skillsync mcp` processes on one warehouse at once: a process trial, in the reliability
// suite (server-total.test.ts holds the one-server trial).
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
  });
}
