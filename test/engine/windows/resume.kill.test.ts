import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { canonicalJson } from "../../../emulator/index.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { emulatorWithClient } from "../../helpers/emulator.js";
import { writePipelineFile } from "../../helpers/pipeline-files.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { runChild } from "../child.js";
import { rows } from "../fixtures.js";
import { datedYaml } from "./fixtures.js";

// The emulator publishes a patent or two a day at most, of one technology each: each query names a
// word of every technology, so most of the 90 one-day windows hold rows (about 50 in all).
const PARAMS = {
  q: [
    "charging battery sensor drug solar robotic compression fan toothbrush display filtration bicycle drone pump brake neural",
    "coil thermal pixel delivery cell gripper data blade head hinge membrane gear aerial heat vehicle network",
  ],
  start: ["2021-01-01"],
  end: ["2021-03-31"],
  step: ["1d"],
};

// Append: a window loaded twice would show as rows twice.
const snapshot = (w: Warehouse) =>
  rows(w, "select query, after, position, publication_number from dated_search order by 1, 2, 3, 4");

const emulatorHash = (skill: string, request: unknown) => {
  const body = typeof request === "string" ? JSON.parse(request) : request;
  return `${skill}:${createHash("sha256").update(canonicalJson(body)).digest("hex")}`;
};

/** The windows recorded done when the run was killed, and their requests (as the emulator hashes them). */
async function afterKill(w: Warehouse): Promise<{ done: number; doneRequests: Set<string> }> {
  // Killed before its first migration: nothing recorded, nothing stored.
  if (!(await w.adapter.listTables(w.db)).includes("skillsync_windows"))
    return { done: 0, doneRequests: new Set() };
  const done = await rows<{ window_start: string }>(w, "select window_start from skillsync_windows");
  const afters = new Set(done.map((d) => `publication:${d.window_start.replaceAll("-", "")}`));
  const stored = await rows<{ request_hash: string; skill: string; request: unknown }>(
    w,
    "select request_hash, skill, request from skillsync_responses",
  );
  const doneRequests = new Set(
    stored
      .filter((r) => {
        const body = typeof r.request === "string" ? JSON.parse(r.request) : r.request;
        return afters.has((body as { after: string }).after);
      })
      .map((r) => emulatorHash(r.skill, r.request)),
  );
  return { done: done.length, doneRequests };
}

async function interrupted(w: Warehouse): Promise<Set<string>> {
  const list = await rows<{ skill: string; request: unknown }>(
    w,
    `select r.skill, r.request from skillsync_calls c join skillsync_responses r on r.request_hash = c.request_hash
     where c.outcome = 'interrupted'`,
  );
  return new Set(list.map((r) => emulatorHash(r.skill, r.request)));
}

describe.each(WAREHOUSE_KINDS)("date windows: kill -9 and resume on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    it("the resumed run asks only the windows not recorded done, pays nothing twice and loads nothing twice", async () => {
      const file = writePipelineFile(datedYaml({ mode: "append" }), {}, "dated.yaml");
      const { emulator, client } = await emulatorWithClient({ latencyMs: 15, jitterMs: 20 });
      const clean = await openWarehouse(freshWarehouseUrl(kind));
      try {
        const s = await runPipelines({
          warehouse: clean,
          client,
          pipelines: [loadPipeline(file)],
          params: PARAMS,
          concurrency: 4,
        });
        expect(s.status).toBe("succeeded");
      } finally {
        await clean.close().catch(() => {});
      }
      const expected = await (async () => {
        const again = await openWarehouse(freshWarehouseUrl(kind));
        try {
          await runPipelines({ warehouse: again, client, pipelines: [loadPipeline(file)], params: PARAMS });
          return await snapshot(again);
        } finally {
          await again.close();
        }
      })();
      // Enough windows with rows that one loaded twice would show (append: its rows twice).
      expect(new Set(expected.map((r) => r["after"])).size).toBeGreaterThanOrEqual(30);

      const spec = { pipelines: [file], params: PARAMS, concurrency: 4 };
      const recordedAtKill: number[] = [];
      // Killed when that many calls were answered: early on, and late.
      for (const answered of [30, 130]) {
        emulator.reset();
        const db = freshWarehouseUrl(kind);
        const killWhen = () => emulator.ledger().calls.length >= answered;
        expect((await runChild(db, emulator.url, { killWhen, spec })).outcome).toBe("killed");
        let w = await openWarehouse(db);
        const killed = await afterKill(w).finally(() => w.close());
        recordedAtKill.push(killed.done);
        const sentBefore = emulator.ledger().calls.length;

        expect((await runChild(db, emulator.url, { spec })).outcome).toBe("finished");
        w = await openWarehouse(db);
        let inFlight: Set<string>;
        try {
          expect(await snapshot(w)).toEqual(expected);
          expect(
            (await rows<{ status: string }>(w, "select status from skillsync_runs")).map((r) => r.status),
          ).toEqual(["succeeded"]);
          expect((await rows(w, "select window_key from skillsync_windows")).length).toBe(90);
          // The resumed part planned the calls of the windows not recorded (2 per window), no others.
          const [run] = await rows<{ calls_planned: number }>(w, "select calls_planned from skillsync_runs");
          expect(Number(run!.calls_planned)).toBe(2 * (90 - killed.done));
          inFlight = await interrupted(w);
        } finally {
          await w.close();
        }
        // The resumed run sent no call of a window the killed one had recorded done.
        const resumedCalls = emulator.ledger().calls.slice(sentBefore);
        const askedAgain = resumedCalls.filter((c) => killed.doneRequests.has(`${c.slug}:${c.bodyHash}`));
        expect(askedAgain, `kill after ${answered} calls: a window recorded done was asked again`).toEqual(
          [],
        );
        // Nothing paid twice but a call the kill left in flight (its answer never stored).
        const seen = new Map<string, number>();
        for (const c of emulator.ledger().calls.filter((x) => x.credits > 0))
          seen.set(`${c.slug}:${c.bodyHash}`, (seen.get(`${c.slug}:${c.bodyHash}`) ?? 0) + 1);
        const twice = [...seen].filter(([key, n]) => n > (inFlight.has(key) ? 2 : 1)).map(([key]) => key);
        expect(twice, `kill after ${answered} calls: a request was paid twice`).toEqual([]);
        expect(seen.size).toBe(180);
      }
      // A kill came after some windows were recorded, and before the last (else the test proves little).
      const between = recordedAtKill.some((n) => n > 0 && n < 90);
      expect(between, `windows recorded at the kills: ${recordedAtKill.join(", ")}`).toBe(true);
    }, 240_000);
  });
});
