import { describe, expect, it } from "vitest";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { keywords, setup } from "./server-total-setup.js";

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`skillsync mcp --max-credits is the server's total, on ${kind}`, () => {
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
