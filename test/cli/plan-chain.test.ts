import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl } from "../helpers/warehouses.js";

interface Plan {
  pipelines: {
    pipeline: string;
    creditsAtMost: number;
    dependsOn?: { dependsOn: string[]; inputsAtMost: number };
  }[];
  creditsAtMost: number;
  unbounded: string[];
}

describe("plans of chained pipelines", () => {
  it("bounds a pipeline fed by an earlier one of the run by what that one can bring", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = [
      "patent-search",
      "patent-bibliography",
      "patent-legal-status",
      "--param",
      "q=lidar",
      "--db",
      db,
    ];
    const plan = await cli(["plan", ...args, "--json"], env);
    expect(plan.code).toBe(0);
    const p = JSON.parse(plan.out) as Plan;
    expect(p.pipelines[1]).toMatchObject({ dependsOn: { dependsOn: ["patent-search"], inputsAtMost: 10 } });
    expect(p.pipelines[2]?.dependsOn?.dependsOn).toEqual(["patent-search", "patent-bibliography"]);
    expect(p.pipelines[2]?.creditsAtMost).toBeGreaterThan(0);
    expect(p.unbounded).toEqual([]);
    const text = await cli(["plan", ...args], env);
    expect(text.out).toMatch(
      /patent-bibliography .*depends on patent-search: up to 10 input\(s\), 1 call\(s\)/,
    );
    expect(emulator.ledger().totalCalls).toBe(0);

    const run = await cli(["run", ...args, "--json"], env);
    expect(run.code).toBe(0);
    const spent = (JSON.parse(run.out) as { counters: { creditsSpent: number } }).counters.creditsSpent;
    expect(spent).toBeGreaterThan(2);
    expect(p.creditsAtMost).toBeGreaterThanOrEqual(spent);
  });
});
