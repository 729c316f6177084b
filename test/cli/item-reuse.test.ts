import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

interface Plan {
  pipelines: { pipeline: string; calls: number; credits: number; items?: Record<string, number> }[];
}

describe("per-item reuse from the command line", () => {
  it("plan shows items from the store and to pay; run and runs <id> show credits saved; --refresh pays again", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const db = freshWarehouseUrl("sqlite");
    const args = (...patents: string[]) => [
      "patent-bibliography",
      ...patents.flatMap((p) => ["--param", `patent=${p}`]),
      "--db",
      db,
    ];
    expect((await cli(["run", ...args("US1000001B2", "US1000002B2")], env)).code).toBe(0);

    const plan = await cli(["plan", ...args("US1000001B2", "US1000003B2"), "--json"], env);
    expect(plan.code).toBe(0);
    expect((JSON.parse(plan.out) as Plan).pipelines[0]).toMatchObject({
      calls: 1,
      credits: 1,
      items: { asked: 2, fromStore: 1, toPay: 1 },
    });
    const table = await cli(["plan", ...args("US1000001B2", "US1000003B2")], env);
    expect(table.out).toMatch(/items_from_store\s+items_to_pay/);

    const run = await cli(["run", ...args("US1000001B2", "US1000003B2"), "--json"], env);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.out) as { runId: string; counters: Record<string, number> };
    expect(summary.counters).toMatchObject({ itemsReused: 1, creditsSaved: 1, creditsSpent: 1 });
    expect(emulator.ledger().totalCredits).toBe(3);
    const text = await cli(["run", ...args("US1000002B2", "US1000003B2")], env);
    expect(text.out).toMatch(/items reused 2 \(credits saved 2\)/);

    const detail = await cli(["runs", summary.runId, "--db", db], env);
    expect(detail.out).toMatch(/item reuse: 1 item\(s\) .* credits saved 1/);

    const refreshed = await cli(["run", ...args("US1000001B2", "US1000003B2"), "--refresh", "--json"], env);
    expect(refreshed.code).toBe(0);
    expect(JSON.parse(refreshed.out).counters).toMatchObject({ itemsReused: 0, creditsSpent: 2 });
    expect(emulator.ledger().totalCredits).toBe(5);
  }, 90_000);
});
