import { describe, expect, it } from "vitest";
import { progressLine } from "../../cli/progress.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import type { RunCounters } from "../../store/runs.js";
import { workerProcess } from "../engine/distribute/processes.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable } from "../helpers/warehouses.js";

// A plan counts first pages only: whether a next page follows is in the answer before it. These
// tests hold the plan and the run to saying so, and the run's planned count to growing visibly.

describe("first pages planned, next pages found while running", () => {
  it("plan says its calls are first pages and how many more may follow, only when more can", async () => {
    const db = freshWarehouseUrl("sqlite");
    const args = ["plan", "marketplace-search", "--db", db, "--param", "keyword=a", "--param", "keyword=b"];
    const paged = await cli([...args, "--param", "pages=3"]);
    expect(paged.code, paged.err).toBe(0);
    expect(paged.out).toContain(
      "marketplace-search: 2 first-page call(s) planned; next pages are asked when answers show more: up to 4 more (at most 3 pages each)",
    );
    const json = await cli([...args, "--param", "pages=3", "--json"]);
    expect(JSON.parse(json.out).pipelines[0]).toMatchObject({ calls: 2, morePagesAtMost: 4, maxPages: 3 });

    // One page each: the calls are all there is, and nothing says otherwise.
    const single = await cli(args);
    expect(single.code, single.err).toBe(0);
    expect(single.out).not.toContain("first-page");
    expect(single.out).not.toContain("next pages");
  });

  it("run says so when it plans, and its summary counts the next pages it found", async () => {
    const { emulator } = await emulatorWithClient();
    const db = freshWarehouseUrl("sqlite");
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = [
      "run",
      "marketplace-search",
      "--db",
      db,
      "--param",
      "keyword=usb hub",
      "--param",
      "keyword=lamp",
    ];
    const r = await cli([...args, "--param", "pages=2"], env);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      "marketplace-search: 2 first-page call(s) planned; next pages are asked when answers show more: up to 2 more (at most 2 pages each)",
    );
    const calls = emulator.ledger().totalCalls;
    expect(calls).toBeGreaterThan(2);
    const found = calls - 2;
    expect(r.out).toContain(
      `calls ${calls}/${calls} (2 planned + ${found} next page${found === 1 ? "" : "s"}, 0 from store)`,
    );

    // Asked again within its freshness: the same pages, found in the store this time.
    const again = await cli([...args, "--param", "pages=2", "--json"], env);
    expect(JSON.parse(again.out).counters).toMatchObject({
      callsPlanned: calls,
      pagesFound: found,
      callsCached: calls,
    });

    // Without pages there is nothing to find, and the line stays as it was.
    const one = await cli([...args, "--refresh"], env);
    expect(one.code, one.err).toBe(0);
    expect(one.err).toContain("marketplace-search: 2 call(s) planned");
    expect(one.out).toContain("calls 2/2 (0 from store)");
  });

  it("the planned count grows while the run goes, each next page as it is found", async () => {
    const { client } = await emulatorWithClient();
    const w = await openWarehouse(freshWarehouseUrl("sqlite"));
    const seen: RunCounters[] = [];
    try {
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: [loadPipeline("marketplace-search")],
        params: { keyword: ["usb hub"], pages: ["3"] },
        concurrency: 1,
        reporter: { update: (c) => seen.push(c) },
      });
      expect(s.status).toBe("succeeded");
      const end = s.counters;
      expect(end.pagesFound).toBeGreaterThan(0);
      expect(end.pagesFound).toBeLessThanOrEqual(2);
      expect(end.callsPlanned).toBe(1 + end.pagesFound);
      expect(end.callsDone).toBe(end.callsPlanned);
      // Before the end, a progress line showed calls done short of a total already grown past the plan.
      const mid = seen.find((c) => c.callsDone > 0 && c.callsDone < c.callsPlanned && c.pagesFound > 0);
      expect(mid, JSON.stringify(seen)).toBeDefined();
      expect(progressLine(mid!)).toMatch(
        new RegExp(
          `^calls ${mid!.callsDone}/${mid!.callsPlanned} \\(1 planned \\+ ${mid!.pagesFound} next pages?, `,
        ),
      );
      const planned = seen.map((c) => c.callsPlanned);
      expect(planned).toEqual([...planned].sort((a, b) => a - b));
      expect(planned[0]).toBe(1);
    } finally {
      await w.close();
    }
  });
});

describe.skipIf(unavailable("postgres"))("next pages found by workers", () => {
  it("a --workers run counts the next pages its workers found, as a local run does", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const args = ["run", "marketplace-search", "--param", "keyword=desk", "--param", "keyword=mat"];
    const paged = [...args, "--param", "pages=2", "--json"];
    const local = await cli([...paged, "--db", freshWarehouseUrl("postgres")], env);
    expect(local.code, local.err).toBe(0);
    const db = freshWarehouseUrl("postgres");
    await workerProcess(db, emulator.url);
    const spread = await cli([...paged, "--db", db, "--workers", "--batch-size", "1"], env);
    expect(spread.code, spread.err).toBe(0);
    const counted = (out: string) => {
      const c = JSON.parse(out).counters as RunCounters;
      return { callsPlanned: c.callsPlanned, pagesFound: c.pagesFound, callsDone: c.callsDone };
    };
    const want = counted(local.out);
    expect(want.pagesFound).toBeGreaterThan(0);
    expect(want.callsPlanned).toBe(2 + want.pagesFound);
    expect(counted(spread.out)).toEqual(want);
  }, 90_000);
});
