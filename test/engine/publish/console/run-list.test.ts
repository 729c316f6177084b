import { describe, expect, it } from "vitest";
import type { Warehouse } from "../../../../connectors/warehouse/open.js";
import { ValidationError } from "../../../../core/errors.js";
import {
  type RunFilter,
  readRunList,
  runPipelineNames,
} from "../../../../engine/publish/console/run-list.js";
import { unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";
import { freshWarehouse, insertRuns, type RunSeed } from "./run-fixtures.js";

const STATUSES = ["succeeded", "failed", "warnings", "ceiling"];
const TRIGGERS = ["manual", "schedule", "server"];
// "a_b" must not match "axb": LIKE's wildcard taken literally.
const PIPELINES = [["prices"], ["axb"], ["a_b", "prices"], ["reviews"]];

/** 40 runs over 10 days, four started at the same instant each day (ties page by id). */
const RUNS: RunSeed[] = Array.from({ length: 40 }, (_, i) => ({
  id: `r${String(i).padStart(3, "0")}`,
  startedAt: new Date(Date.UTC(2026, 10, 20 + (i % 10), 12)).toISOString(),
  status: STATUSES[i % 4]!,
  trigger: TRIGGERS[i % 3]!,
  pipelines: PIPELINES[(i >> 1) % 4]!,
  credits: i,
}));

/** Every page of a filter, followed by its cursors. */
async function allPages(w: Warehouse, f: RunFilter) {
  const pages: { ids: string[]; total: number }[] = [];
  let before: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = await readRunList(w, { ...f, before });
    pages.push({ ids: page.runs.map((r) => String(r.runId)), total: page.total });
    if (!page.next) return pages;
    before = page.next;
  }
  throw new Error("no last page");
}

/** What a filter must list, newest first (by start, then id). */
function expected(match: (r: RunSeed) => boolean): string[] {
  return RUNS.filter(match)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id))
    .map((r) => r.id);
}

for (const kind of WAREHOUSE_KINDS) {
  describe.skipIf(unavailable(kind))(`the console's runs list on ${kind}`, () => {
    it("pages every run once, newest first, and filters by outcome, pipeline, trigger and days", async () => {
      const w = await freshWarehouse(kind);
      await insertRuns(w, RUNS);

      const pages = await allPages(w, { limit: 7 });
      expect(pages.map((p) => p.ids.length)).toEqual([7, 7, 7, 7, 7, 5]);
      expect(pages.flatMap((p) => p.ids)).toEqual(expected(() => true));
      expect(pages.every((p) => p.total === 40)).toBe(true);

      const cases: [RunFilter, (r: RunSeed) => boolean][] = [
        [{ limit: 3, status: "failed" }, (r) => r.status === "failed"],
        [{ limit: 3, trigger: "schedule" }, (r) => r.trigger === "schedule"],
        [{ limit: 4, pipeline: "prices" }, (r) => r.pipelines!.includes("prices")],
        [{ limit: 4, pipeline: "a_b" }, (r) => r.pipelines!.includes("a_b")],
        [
          { limit: 5, from: "2026-11-22", to: "2026-11-24" },
          (r) => r.startedAt >= "2026-11-22" && r.startedAt < "2026-11-25",
        ],
        [
          { limit: 2, status: "succeeded", trigger: "manual", from: "2026-11-21" },
          (r) => r.status === "succeeded" && r.trigger === "manual" && r.startedAt >= "2026-11-21",
        ],
      ];
      for (const [f, match] of cases) {
        const got = await allPages(w, f);
        expect(
          got.flatMap((p) => p.ids),
          JSON.stringify(f),
        ).toEqual(expected(match));
        expect(got[0]?.total, JSON.stringify(f)).toBe(expected(match).length);
      }
      const none = await readRunList(w, { limit: 5, pipeline: "nothing" });
      expect(none).toEqual({ runs: [], total: 0, next: null });
    });

    it("gives runs as every reader shows them, the pipelines for the filter, and refuses a bad day or cursor", async () => {
      const w = await freshWarehouse(kind);
      await insertRuns(w, RUNS.slice(0, 8));
      const page = await readRunList(w, { limit: 1, pipeline: "a_b" });
      expect(page.runs[0]).toMatchObject({
        runId: "r005",
        pipeline: "a_b,prices",
        trigger: "server",
        status: "failed",
        startedAt: "2026-11-25T12:00:00.000Z",
        credits: { spent: 5 },
      });
      expect(page.next).toBe("2026-11-25T12:00:00.000Z r005");
      expect(await runPipelineNames(w)).toEqual(["a_b", "axb", "prices", "reviews"]);
      await expect(readRunList(w, { limit: 5, from: "2026-13-45" })).rejects.toBeInstanceOf(ValidationError);
      await expect(readRunList(w, { limit: 5, before: "yesterday" })).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
