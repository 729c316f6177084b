import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import type { Emulator } from "../../emulator/index.js";
import { type LoadedPipeline, loadPipeline } from "../../engine/define/pipeline-file.js";
import { loadPrices } from "../../engine/define/prices.js";
import { runPipelines } from "../../engine/run/runner.js";
import { setBudget } from "../../store/budget-status.js";
import { migrateToLatest } from "../../store/migrate.js";
import { runChild } from "./support/child.js";
import { suiteClient, suiteEmulator } from "./support/emulator.js";
import { credits } from "./support/ledger.js";
import { between, envCount, pick, prng } from "./support/prng.js";
import { rows } from "./support/snapshot.js";
import { addFigures, filesDir } from "./support/suite.js";
import { type Kind, PG_URL, suiteWarehouse } from "./support/warehouses.js";

// 1000 randomized runs: prices, concurrency 1–32, --max-credits, a pipeline's maxCredits, the
// warehouse's daily budget, and several runs at once against one warehouse (in this process, and
// in separate processes). Each run has its own emulator charging exactly the prices the run was
// given, so its ledger is the run's real spending.
const RUNS = envCount("RELIABILITY_CEILING_RUNS", 1000);
const PRICES = [0.25, 0.5, 1, 1.5, 2.75, 4];
const EPS = 1e-9;

interface Plan {
  id: string;
  pipeline: "marketplace-search" | "patent-claims";
  params: Record<string, string[]>;
  price: number;
  concurrency: number;
  maxCredits: number | undefined;
  pipelineMax: number | undefined;
}

function planRun(rnd: () => number, id: string, inProcess: boolean): Plan {
  const price = pick(rnd, PRICES);
  // Child processes take per-call prices only (marketplace-search).
  const claims = inProcess && rnd() < 0.3;
  const params: Record<string, string[]> = claims
    ? {
        patent: Array.from(
          { length: between(rnd, 1, 240) },
          (_, i) => `US${String(10_000_000 + Number.parseInt(id.replace(/\D/g, ""), 10) * 300 + i)}B2`,
        ),
      }
    : {
        keyword: Array.from({ length: between(rnd, 1, 24) }, (_, i) => `${id} kw ${i}`),
        pages: [String(between(rnd, 1, 3))],
      };
  const full = claims ? params["patent"]!.length * price : params["keyword"]!.length * price * 3;
  return {
    id,
    pipeline: claims ? "patent-claims" : "marketplace-search",
    params,
    price,
    concurrency: between(rnd, 1, 32),
    maxCredits: rnd() < 0.85 ? Math.round(rnd() * full * 1.3 * 4) / 4 : undefined,
    pipelineMax: inProcess && rnd() < 0.2 ? Math.round(rnd() * full * 4) / 4 + 0.25 : undefined,
  };
}

/** marketplace-search with a maxCredits line, as a user's copy of the file would have it. */
function withPipelineMax(p: LoadedPipeline, max: number): LoadedPipeline {
  const dir = filesDir("ceiling-pipeline");
  const file = join(dir, `${p.name}.yaml`);
  writeFileSync(file, `${readFileSync(p.file, "utf8")}\nmaxCredits: ${max}\n`);
  return loadPipeline(file);
}

const emulatorFor = (plan: Plan) =>
  suiteEmulator({
    latencyMs: 0,
    jitterMs: 3,
    prices:
      plan.pipeline === "patent-claims"
        ? { "patent-claims": { perItem: plan.price } }
        : { "marketplace-search": plan.price },
  });

describe("credit ceilings", () => {
  const pools = new Map<string, { url: string; list: Warehouse[] }>();
  afterAll(async () => {
    for (const { list } of pools.values()) for (const w of list) await w.close();
  });

  /**
   * Connections to each of a few warehouses, reused by the groups of runs: four to a Postgres
   * schema; one to a SQLite file, shared, as the server shares it (better-sqlite3 is synchronous:
   * two connections of one process waiting on each other's lock would wait out the busy timeout).
   */
  async function connections(kind: Kind, slot: number): Promise<{ url: string; list: Warehouse[] }> {
    const key = `${kind}:${slot}`;
    let pool = pools.get(key);
    if (!pool) {
      const url = suiteWarehouse(kind, `ceil_${slot}`);
      const list: Warehouse[] = [];
      for (let i = 0; i < (kind === "sqlite" ? 1 : 4); i++) list.push(await openWarehouse(url));
      await migrateToLatest(list[0]!);
      pool = { url, list };
      pools.set(key, pool);
    }
    return pool;
  }

  it(`${RUNS} randomized runs spend nothing past any ceiling`, async () => {
    const rnd = prng(20261121);
    const problems: string[] = [];
    const f = {
      runs: 0,
      runs_postgres: 0,
      runs_processes: 0,
      groups: 0,
      stopped_at_ceiling: 0,
      daily_budget_groups: 0,
      overshoot: 0,
      credits_charged: 0,
    };
    let n = 0;
    while (n < RUNS) {
      const group = between(rnd, 1, 4);
      const kind: Kind = PG_URL && rnd() < 0.08 ? "postgres" : "sqlite";
      const processes = rnd() < 0.02;
      const { url, list } = await connections(kind, between(rnd, 0, kind === "sqlite" ? 3 : 1));
      const plans = Array.from({ length: Math.min(group, RUNS - n) }, (_, i) =>
        planRun(rnd, `r${n + i}`, !processes),
      );
      n += plans.length;
      f.groups++;

      // The daily budget: what is already reserved today plus a little, or none.
      const today = async () =>
        Number(
          (
            await rows<{ r: number }>(
              list[0]!,
              "select sum(reserved) as r from skillsync_budgets where scope like 'daily:%'",
            )
          )[0]?.r ?? 0,
        );
      const before = await today();
      const daily = rnd() < 0.3 ? before + Math.round(rnd() * 40 * 4) / 4 : null;
      await setBudget(list[0]!, "daily", daily);
      if (daily !== null) f.daily_budget_groups++;

      const emulators: Emulator[] = await Promise.all(plans.map(emulatorFor));
      try {
        const outcomes = await Promise.all(
          plans.map(async (plan, i) => {
            const emu = emulators[i]!;
            if (processes) {
              const r = await runChild({
                db: url,
                baseUrl: emu.url,
                pipelines: [plan.pipeline],
                params: plan.params,
                concurrency: plan.concurrency,
                maxCredits: plan.maxCredits,
                prices: { [plan.pipeline]: plan.price },
              });
              if (r.outcome !== "finished")
                problems.push(`${plan.id}: the process ${r.outcome}: ${r.stderr}`);
              return r.summary?.status;
            }
            const client = suiteClient(emu);
            const prices = new Map(loadPrices());
            prices.set(
              plan.pipeline,
              plan.pipeline === "patent-claims" ? { perItem: plan.price } : { perCall: plan.price },
            );
            const base = loadPipeline(plan.pipeline);
            try {
              const s = await runPipelines({
                warehouse: list[i % list.length]!,
                client,
                pipelines: [plan.pipelineMax === undefined ? base : withPipelineMax(base, plan.pipelineMax)],
                params: plan.params,
                concurrency: plan.concurrency,
                maxCredits: plan.maxCredits,
                prices,
              });
              if (s.failures.length) problems.push(`${plan.id}: ${s.failures[0]!.message}`);
              return s.status;
            } finally {
              await client.close();
            }
          }),
        );
        let groupCharged = 0;
        plans.forEach((plan, i) => {
          const spent = credits(emulators[i]!.ledger().calls);
          groupCharged += spent;
          f.credits_charged += spent;
          if (outcomes[i] === "ceiling") f.stopped_at_ceiling++;
          const limits = [plan.maxCredits, plan.pipelineMax].filter((x): x is number => x !== undefined);
          for (const limit of limits) {
            if (spent > limit + EPS) {
              f.overshoot += spent - limit;
              problems.push(
                `${plan.id} (${kind}, ${JSON.stringify({ ...plan, params: undefined })}): spent ${spent} > ${limit}`,
              );
            }
          }
          if (!["succeeded", "ceiling"].includes(String(outcomes[i])))
            problems.push(`${plan.id}: ended ${outcomes[i]}`);
        });
        if (daily !== null && groupCharged > daily - before + EPS) {
          f.overshoot += groupCharged - (daily - before);
          problems.push(`group at run ${n} (${kind}): spent ${groupCharged} > daily room ${daily - before}`);
        }
        // Every credit any emulator charged was reserved in the warehouse first.
        const reserved = (await today()) - before;
        if (groupCharged > reserved + EPS)
          problems.push(`group at run ${n}: charged ${groupCharged}, reserved ${reserved}`);
      } finally {
        await Promise.all(emulators.map((e) => e.stop()));
      }
      f.runs += plans.length;
      if (kind === "postgres") f.runs_postgres += plans.length;
      if (processes) f.runs_processes += plans.length;
    }
    for (const { list } of pools.values()) await setBudget(list[0]!, "daily", null);
    addFigures("ceilings", f);
    console.log(`ceilings: ${JSON.stringify(f)}`);
    expect(problems.slice(0, 20)).toEqual([]);
    expect(f.runs).toBe(RUNS);
    // The ceilings were really reached, often.
    expect(f.stopped_at_ceiling).toBeGreaterThan(RUNS / 4);
  });
});
