import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { writePriceFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

// Issue 44: a price file listing a paid operation at 0 let 14 paid calls through --max-credits 2
// without a word, and credits from the catalog's guessed prices were shown as if they were the bill.
const RUN = ["run", "marketplace-search", "--param", "keyword=desk mat", "--param", "keyword=cable tray"];
const ESTIMATED = /credits are estimated: priced by the catalog, not the account's prices/;

describe.each(WAREHOUSE_KINDS)("honest ceilings on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("a ceiling over an operation priced 0 is refused before any call; --allow-unpriced runs and says so", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      const prices = writePriceFile("marketplace-search: 0\n");
      const args = [...RUN, "--db", db, "--prices", prices, "--max-credits", "2"];

      const refused = await cli(args, env);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(
        /marketplace-search is priced 0 by the price file: --max-credits 2 cannot bind on it; add a price for marketplace-search to your price file .*or pass --allow-unpriced/,
      );
      expect(emulator.ledger().totalCalls).toBe(0);
      // Refused before the warehouse was touched: no run row.
      const listed = await cli(["runs", "--db", db, "--json"]);
      expect(listed.code !== 0 || JSON.parse(listed.out).length === 0).toBe(true);

      const allowed = await cli([...args, "--allow-unpriced"], env);
      expect(allowed.code).toBe(0);
      expect(allowed.out).toContain(
        "warning: --allow-unpriced: marketplace-search is priced 0 by the price file: --max-credits 2 does not bind on its calls",
      );
      // The service bills what it bills: the ceiling did not hold, and the output said it would not.
      expect(emulator.ledger().chargedCalls).toBe(2);
      const json = await cli([...args, "--allow-unpriced", "--refresh", "--json"], env);
      expect(JSON.parse(json.out).priceWarnings).toHaveLength(1);
    });

    it("a daily budget is a ceiling too: refused over a 0-priced operation without --max-credits", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
      expect((await cli(["budget", "--db", db, "--daily", "10"])).code).toBe(0);
      const r = await cli([...RUN, "--db", db, "--prices", writePriceFile("marketplace-search: 0\n")], env);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /marketplace-search is priced 0 by the price file: daily budget of 10 cannot bind/,
      );
      expect(emulator.ledger().totalCalls).toBe(0);
      // Without a ceiling a 0 price binds nothing it should: the run goes ahead.
      const none = await cli(["budget", "--db", db, "--daily", "none"]);
      expect(none.code).toBe(0);
      const free = await cli(
        [...RUN, "--db", db, "--prices", writePriceFile("marketplace-search: 0\n")],
        env,
      );
      expect(free.code).toBe(0);
    });

    it("credits from the catalog's prices are labelled estimated in run, runs and budget; a price file's are not", async () => {
      const { emulator } = await emulatorWithClient();
      const db = freshWarehouseUrl(kind);
      const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };

      const guessed = await cli([...RUN, "--db", db, "--max-credits", "5"], env);
      expect(guessed.code).toBe(0);
      expect(guessed.out).toMatch(ESTIMATED);
      expect(guessed.out.match(/credits are estimated/g)).toHaveLength(1);
      const guessedJson = await cli([...RUN, "--db", db, "--json", "--refresh"], env);
      expect(JSON.parse(guessedJson.out)).toMatchObject({ creditsEstimated: true, priceWarnings: [] });

      const own = writePriceFile("marketplace-search: 1\n");
      const billed = await cli(
        ["run", "marketplace-search", "--param", "keyword=lamp", "--db", db, "--prices", own],
        env,
      );
      expect(billed.code).toBe(0);
      expect(billed.out).not.toMatch(/estimated/);
      const billedJson = await cli(
        [
          "run",
          "marketplace-search",
          "--param",
          "keyword=lamp",
          "--db",
          db,
          "--prices",
          own,
          "--json",
          "--refresh",
        ],
        env,
      );
      expect(JSON.parse(billedJson.out).creditsEstimated).toBe(false);

      const runs = JSON.parse((await cli(["runs", "--db", db, "--json"])).out);
      expect(runs.map((r: { credits: { estimated: boolean } }) => r.credits.estimated)).toEqual([
        false,
        false,
        true,
        true,
      ]);
      const table = await cli(["runs", "--db", db]);
      expect(table.out).toMatch(/≈2/);
      expect(table.out).toMatch(/≈ credits are estimated/);
      const one = await cli(["runs", JSON.parse(billedJson.out).runId, "--db", db]);
      expect(one.out).not.toMatch(/estimated/);

      const budget = await cli(["budget", "--db", db, "--json"]);
      expect(JSON.parse(budget.out).map((b: { estimated: boolean }) => b.estimated)).toEqual([true, true]);
      expect((await cli(["budget", "--db", db])).out).toMatch(/spent and remaining are estimated/);
      expect(emulator.ledger().chargedCalls).toBeGreaterThan(0);
    });
  });
});
