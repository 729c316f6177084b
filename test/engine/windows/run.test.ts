import { afterEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { answerAt, DEFAULT_EMULATOR_DATE, type Emulator } from "../../../emulator/index.js";
import type { LoadedPipeline } from "../../../engine/define/pipeline-file.js";
import { planPipelines } from "../../../engine/run/plan.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { count, pipelineFrom, rows } from "../fixtures.js";
import { datedYaml } from "./fixtures.js";

const BACKFILL = { q: ["solid state battery"], start: ["2025-01-01"], end: ["2025-03-31"], step: ["1d"] };

/** How many publications the emulator's search for `q` finds on one day (yyyymmdd). */
function dayHits(q: string, day: string): number {
  const bound = `publication:${day}`;
  return answerAt("websearch-patent-search", { q, after: bound, before: bound }, DEFAULT_EMULATOR_DATE)[
    "total"
  ] as number;
}

/** Calls the emulator charged, and how many distinct requests they were. */
function charged(emulator: Emulator): { calls: number; distinct: number } {
  const calls = emulator.ledger().calls.filter((c) => c.credits > 0);
  return { calls: calls.length, distinct: new Set(calls.map((c) => c.bodyHash)).size };
}

/** The windows a run recorded: their first days. */
const recordedBy = async (w: Warehouse, runId: string) =>
  (
    await rows<{ window_start: string }>(
      w,
      `select window_start from skillsync_windows where run_id = '${runId}' order by window_start`,
    )
  ).map((r) => r.window_start);

describe.each(WAREHOUSE_KINDS)("date windows on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });

    const setup = async (mode = "merge") => {
      const env = await emulatorWithClient();
      w = await openWarehouse(freshWarehouseUrl(kind));
      const p = pipelineFrom(datedYaml({ mode }));
      const run = (params: Record<string, string[]>, o: { refresh?: boolean } = {}) =>
        runPipelines({ warehouse: w!, client: env.client, pipelines: [p], params, concurrency: 4, ...o });
      const plan = (params: Record<string, string[]>) =>
        planPipelines({
          warehouse: w!,
          pipelines: [p],
          params,
          prepare: env.client.prepare.bind(env.client),
        });
      return { ...env, w, p, run, plan };
    };

    it("a 90-day backfill: plan prices 90 windows, run asks each once, a rerun sends nothing, end one day later asks 4", async () => {
      const { emulator, w, run, plan } = await setup();
      const planned = await plan(BACKFILL);
      const windows = planned.pipelines[0]!.windows!;
      expect(windows).toHaveLength(90);
      expect(windows.every((x) => x.ask === "new" && x.calls === 1 && x.credits === 1)).toBe(true);
      expect(windows[0]).toMatchObject({ start: "2025-01-01", end: "2025-01-01" });
      expect(planned.pipelines[0]).toMatchObject({ calls: 90, credits: 90 });
      expect(planned.credits).toBe(90);
      expect(emulator.ledger().totalCalls).toBe(0);

      const first = await run(BACKFILL);
      expect(first.status).toBe("succeeded");
      expect(charged(emulator)).toEqual({ calls: 90, distinct: 90 });
      expect(first.counters.creditsSpent).toBe(90);
      expect(await recordedBy(w, first.runId)).toHaveLength(90);
      const loaded = await count(w, "dated_search");
      expect(loaded).toBeGreaterThan(0);

      const again = await run(BACKFILL);
      expect(again.status).toBe("succeeded");
      expect(again.resumed).toBe(false);
      expect(emulator.ledger().totalCalls).toBe(90);
      expect(again.counters).toMatchObject({ callsPlanned: 0, callsDone: 0, creditsSpent: 0 });
      const replanned = await plan(BACKFILL);
      expect(replanned.credits).toBe(0);
      expect(replanned.pipelines[0]!.windows!.every((x) => x.ask === "done" && x.calls === 0)).toBe(true);

      // End one day later, lookback 3d: the new day, and the 3 days before the old end asked again —
      // paid again although their answers are fresh in the store (24h).
      const later = { ...BACKFILL, end: ["2025-04-01"] };
      const laterPlan = (await plan(later)).pipelines[0]!;
      expect(laterPlan.windows!.filter((x) => x.ask !== "done").map((x) => `${x.start} ${x.ask}`)).toEqual([
        "2025-03-29 again",
        "2025-03-30 again",
        "2025-03-31 again",
        "2025-04-01 new",
      ]);
      expect(laterPlan).toMatchObject({ calls: 4, fromStore: 0, credits: 4 });
      const moved = await run(later);
      expect(moved.status).toBe("succeeded");
      expect(charged(emulator)).toEqual({ calls: 94, distinct: 91 });
      expect(moved.counters).toMatchObject({
        callsPlanned: 4,
        callsDone: 4,
        callsCached: 0,
        creditsSpent: 4,
      });
      expect(await recordedBy(w, moved.runId)).toEqual([
        "2025-03-29",
        "2025-03-30",
        "2025-03-31",
        "2025-04-01",
      ]);
      // Merged on its key: the windows asked again replaced their rows; the new day added its own.
      expect(await count(w, "dated_search")).toBe(loaded + dayHits("solid state battery", "20250401"));

      // And once more with the same end: nothing.
      await run(later);
      expect(emulator.ledger().totalCalls).toBe(94);
    }, 60_000);

    it("mode replace keeps the rows of the windows it does not ask again, and pages stay in their window", async () => {
      const env = await emulatorWithClient();
      w = await openWarehouse(freshWarehouseUrl(kind));
      const p: LoadedPipeline = pipelineFrom(
        datedYaml({ mode: "replace", extra: "paginate: { member: page, maxPages: 2, total: total }\n" })
          .replace("  key: [query, after, position]", "  key: [query, after, page, position]")
          .replace(
            "    position: integer",
            "    position: integer\n    page: { from: $request.page, type: integer }",
          ),
      );
      const params = { q: ["heat pump"], start: ["2025-02-01"], end: ["2025-02-10"], step: ["1d"] };
      const run = (o: Record<string, string[]>) =>
        runPipelines({ warehouse: w!, client: env.client, pipelines: [p], params: o });
      // Each day's search is asked for its pages (at most 2): one when the day published nothing.
      const days = Array.from({ length: 11 }, (_, i) => `202502${String(i + 1).padStart(2, "0")}`);
      const pages = days.map((d) => Math.min(2, Math.max(1, Math.ceil(dayHits("heat pump", d) / 10))));
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const first = await run(params);
      expect(first.status).toBe("succeeded");
      const firstCalls = sum(pages.slice(0, 10));
      expect(charged(env.emulator)).toEqual({ calls: firstCalls, distinct: firstCalls });
      const perWindow = await rows<{ after: string; n: number }>(
        w,
        "select after, count(*) as n from dated_search group by after order by after",
      );
      expect(perWindow).toHaveLength(days.slice(0, 10).filter((d) => dayHits("heat pump", d) > 0).length);

      const moved = await run({ ...params, end: ["2025-02-11"] });
      expect(moved.status).toBe("succeeded");
      // The last 3 windows asked again (lookback), and the new one.
      expect(charged(env.emulator)).toEqual({
        calls: firstCalls + sum(pages.slice(7, 11)),
        distinct: firstCalls + (pages[10] ?? 0),
      });
      const after = await rows<{ after: string; n: number }>(
        w,
        "select after, count(*) as n from dated_search group by after order by after",
      );
      // Every earlier window's rows kept (written by the first run), one window more.
      expect(after.slice(0, perWindow.length).map((r) => [r.after, Number(r.n)])).toEqual(
        perWindow.map((r) => [r.after, Number(r.n)]),
      );
      expect(after.map((r) => r.after).slice(perWindow.length)).toEqual(
        dayHits("heat pump", "20250211") > 0 ? ["publication:20250211"] : [],
      );
    }, 60_000);

    it("--refresh asks every window again; a window of today is never recorded (its data is still coming)", async () => {
      const { emulator, w, run } = await setup();
      const params = { ...BACKFILL, start: ["2025-03-20"], end: ["2025-03-24"] };
      await run(params);
      expect(charged(emulator).calls).toBe(5);
      const refreshed = await run(params, { refresh: true });
      expect(charged(emulator).calls).toBe(10);
      expect(await recordedBy(w, refreshed.runId)).toHaveLength(5);

      const today = new Date().toISOString().slice(0, 10);
      const s = await run({ ...params, start: ["yesterday"], end: ["today"] });
      expect(s.status).toBe("succeeded");
      expect(await recordedBy(w, s.runId)).toEqual([
        new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
      ]);
      expect(await recordedBy(w, s.runId)).not.toContain(today);
      // Today's window is asked again (its answer is fresh in the store: loaded for 0 credits).
      const before = charged(emulator).calls;
      const again = await run({ ...params, start: ["yesterday"], end: ["today"] });
      expect(again.counters.callsPlanned).toBe(1);
      expect(again.counters.callsCached).toBe(1);
      expect(charged(emulator).calls).toBe(before);
    }, 60_000);

    it("a bad window value is refused before anything is written or sent (exit code 2)", async () => {
      const { emulator, w, run } = await setup();
      const err = await run({ ...BACKFILL, start: ["2025-03-10"], end: ["2025-03-01"] }).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(
          "window.start: the range starts 2025-03-10, after its end 2025-03-01",
        ),
      });
      const step = await run({ ...BACKFILL, step: ["2x"] }).catch((e: unknown) => e);
      expect(step).toMatchObject({ exitCode: 2, message: expect.stringContaining('window.step: "2x"') });
      expect(emulator.ledger().totalCalls).toBe(0);
      const tables = await w.adapter.listTables(w.db);
      expect(tables).not.toContain("skillsync_runs");
    });
  });
});
