import { describe, expect, it } from "vitest";
import { unavailable } from "../helpers/warehouses.js";
import { startTestServer, waitForRun } from "./helpers.js";

describe.skipIf(unavailable("sqlite"))("the server's run queue", () => {
  it("runs one run per pipeline at a time, and at most maxRuns overall", async () => {
    const t = await startTestServer("sqlite", { maxRuns: 2 }, { latencyMs: 250 });
    const post = async (pipeline: string, params: Record<string, string[]>) => {
      const r = await t.call("POST", "/runs", { pipeline, params, maxCredits: 5 });
      expect(r.status).toBe(202);
      return r.json.runId as string;
    };
    const a1 = await post("marketplace-search", { keyword: ["first"] });
    const a2 = await post("marketplace-search", { keyword: ["second"] });
    const b1 = await post("patent-search", { q: ["lidar"] });
    const c1 = await post("patent-claims", { patent: ["US11234567B2"] });

    const list = await t.call("GET", "/runs");
    expect(list.json.running).toBeLessThanOrEqual(2);
    expect(list.json.running + list.json.queued).toBeGreaterThanOrEqual(2);

    const done = await Promise.all([a1, a2, b1, c1].map((id) => waitForRun(t, id)));
    expect(done.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    const span = done.map((r) => [Date.parse(r.startedAt), Date.parse(r.finishedAt)] as const);
    // The second run of a pipeline started only after the first finished.
    expect(span[1]![0]).toBeGreaterThanOrEqual(span[0]![1]);
    // Never more than two at once: at each start, count the runs in progress.
    for (const [start] of span) {
      const inProgress = span.filter(([s, f]) => s <= start && start < f).length;
      expect(inProgress).toBeLessThanOrEqual(2);
    }
    // Each run takes the emulator's 250 ms, so four runs two at a time take two rounds at least.
    expect(Math.max(...span.map(([, f]) => f)) - Math.min(...span.map(([s]) => s))).toBeGreaterThanOrEqual(
      500,
    );
  });
});
