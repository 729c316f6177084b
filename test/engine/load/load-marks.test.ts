import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../connectors/warehouse/tables.js";
import { answerKeeper } from "../../../engine/extract/keep-answers.js";
import { type Answer, type LoadTarget, loadAnswers } from "../../../engine/load/load-response.js";
import { compileMapping } from "../../../engine/normalize/mapping.js";
import { insertCall } from "../../../store/calls.js";
import { migrateToLatest } from "../../../store/migrate.js";
import { isLoaded, markLoaded } from "../../../store/part-loads.js";
import { freshResponses } from "../../../store/responses.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../helpers/warehouses.js";
import { firstCall, pipelineFrom, rows } from "../fixtures.js";

const RUN = "run-1";
const pipeline = pipelineFrom(`name: marks
skill: marketplace-search
records:
  path: products
  table: marked
  key: [asin]
  columns: { asin: text }
`);

const call = (hash: string) => firstCall(pipeline.skill, hash, { keyword: hash });

// Whether a resumed run loads a stored answer again hangs on these marks: a paid answer's ledger
// row records its load, an answer only kept (its load failed) must not look loaded.
describe.each(WAREHOUSE_KINDS)("load marks on the ledger on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    let target: LoadTarget;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      const mapping = compileMapping(pipeline.records);
      await ensureTable(w, mapping.table);
      target = { pipeline, params: {}, mapping };
      return () => w.close();
    });

    async function paid(hash: string, products: unknown[]): Promise<Answer> {
      const c = call(hash);
      const callId = await insertCall(
        w.db,
        { runId: RUN, pipeline: pipeline.name, skill: pipeline.skill, requestHash: hash, credits: 1 },
        "reserved",
      );
      return {
        call: c,
        data: { products },
        receivedAt: new Date().toISOString(),
        ledger: { kind: "paid", callId },
      };
    }

    const ledger = () =>
      rows<{ request_hash: string; outcome: string; loaded_rows: number | null }>(
        w,
        "select request_hash, outcome, loaded_rows from skillsync_calls order by request_hash",
      );

    it("a loaded answer's ledger row holds the rows its load wrote; an empty page counts as loaded", async () => {
      await loadAnswers(w, target, RUN, [
        await paid("a", [{ asin: "A1" }, { asin: "A2" }]),
        await paid("b", []),
        {
          call: call("c"),
          data: { products: [{ asin: "C1" }] },
          receivedAt: new Date().toISOString(),
          ledger: { kind: "cached" },
        },
      ]);
      expect((await ledger()).map((r) => [r.request_hash, r.outcome, Number(r.loaded_rows)])).toEqual([
        ["a", "succeeded", 2],
        ["b", "succeeded", 0],
        ["c", "cached", 1],
      ]);
      for (const hash of ["a", "b", "c"]) expect(await isLoaded(w, RUN, pipeline.name, hash)).toBe(true);
      expect(await isLoaded(w, "another-run", pipeline.name, "a")).toBe(false);
      expect(await isLoaded(w, RUN, "another-pipeline", "a")).toBe(false);
    });

    it("in a group where a key comes twice, each answer records what its own load would write", async () => {
      const group = [
        await paid("a", [{ asin: "A1" }, { asin: "A1" }, { asin: "A2" }]), // A1 twice in one page
        await paid("b", [{ asin: "A2" }, { asin: "B1" }]), // A2 again, from another answer
        await paid("c", [{ asin: "C1" }]),
      ];
      const loaded = await loadAnswers(w, target, RUN, group);
      expect((await ledger()).map((r) => [r.request_hash, Number(r.loaded_rows)])).toEqual([
        ["a", 2],
        ["b", 2],
        ["c", 1],
      ]);
      expect(loaded.rows).toBe(5);
      expect(await rows(w, "select asin from marked order by asin")).toEqual(
        ["A1", "A2", "B1", "C1"].map((asin) => ({ asin })),
      );
    });

    it("in a group with no key twice, each answer records all its rows", async () => {
      const loaded = await loadAnswers(w, target, RUN, [
        await paid("a", [{ asin: "A1" }, { asin: "A2" }]),
        await paid("b", [{ asin: "B1" }, { asin: "B2" }, { asin: "B3" }]),
      ]);
      expect((await ledger()).map((r) => [r.request_hash, Number(r.loaded_rows)])).toEqual([
        ["a", 2],
        ["b", 3],
      ]);
      expect(loaded.rows).toBe(5);
    });

    it("an answer kept on arrival (its load never came) is paid for and stored, not loaded", async () => {
      const a = await paid("kept", [{ asin: "K1" }]);
      if (a.ledger.kind !== "paid") throw new Error("a paid answer");
      const { callId } = a.ledger;
      await answerKeeper(w, pipeline, RUN).keep({
        ...a,
        callId,
        traceId: null,
        end: { outcome: "answered" },
      });
      expect(await ledger()).toEqual([{ request_hash: "kept", outcome: "answered", loaded_rows: null }]);
      expect(await isLoaded(w, RUN, pipeline.name, "kept")).toBe(false);
      expect((await freshResponses(w.db, ["kept"], 0, RUN)).get("kept")?.data).toEqual({
        products: [{ asin: "K1" }],
      });
    });

    it("a load marked the earlier way (report parts, versions before 005_call_loads) still counts", async () => {
      await markLoaded(w.db, [{ runId: RUN, pipeline: pipeline.name, hash: "old", rows: 3 }]);
      expect(await isLoaded(w, RUN, pipeline.name, "old")).toBe(true);
      expect(await isLoaded(w, RUN, pipeline.name, "never")).toBe(false);
    });
  });
});
