import { describe, expect, it } from "vitest";
import { emulatorWithClient } from "../helpers/emulator.js";
import { writePriceFile } from "../helpers/pipeline-files.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";
import { startMcp } from "./helpers.js";

// Issue 44: MCP's total of 20 billed 40 and reported "spent 20", as if the catalog's guess were the bill.
const KEY = "sk-mcp-test-secret-honest-7a2e";

async function setup(...args: string[]) {
  const { emulator } = await emulatorWithClient({ keys: [{ key: KEY }] });
  const env = { SKILL_API_KEY: KEY, SKILL_API_BASE_URL: emulator.url };
  const mcp = await startMcp(["--db", freshWarehouseUrl("sqlite"), "--max-credits", "20", ...args], env);
  const run = () =>
    mcp.call("run", { pipeline: "marketplace-search", params: { keyword: ["usb hub"] }, maxCredits: 5 });
  return { emulator, mcp, run };
}

describe("the MCP run and budget tools say when credits are estimates", () => {
  it("catalog prices: run and budget are marked estimated; a price file's: not", async () => {
    const guessed = await setup();
    const answer = await guessed.run();
    expect(answer.json.credits).toMatchObject({ estimated: true, note: expect.stringMatching(/estimated/) });
    const budget = await guessed.mcp.call("budget");
    expect(budget.json).toMatchObject({
      estimated: true,
      note: expect.stringMatching(/credits are estimated/),
    });

    const own = await setup("--prices", writePriceFile("marketplace-search: 1\n"));
    const billed = await own.run();
    expect(billed.json.credits.estimated).toBe(false);
    expect(billed.json.credits.note).toBeUndefined();
  });

  it("a 0 price under the server's total is refused; with --allow-unpriced the run warns", async () => {
    const free = writePriceFile("marketplace-search: 0\n");
    const refused = await setup("--prices", free);
    const answer = await refused.run();
    expect(answer.isError).toBe(true);
    expect(answer.json.error.message).toMatch(
      /marketplace-search is priced 0 by the price file: --max-credits 5, total .* cannot bind on it/,
    );
    expect(refused.emulator.ledger().totalCalls).toBe(0);

    const allowed = await setup("--prices", free, "--allow-unpriced");
    const ran = await allowed.run();
    expect(ran.json.status).toBe("succeeded");
    expect(ran.json.warnings).toContainEqual({
      code: "UNPRICED",
      message: expect.stringMatching(
        /marketplace-search is priced 0 by the price file: .* does not bind on its calls/,
      ),
    });
  });
});
