import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../../../connectors/warehouse/open.js";
import { ensureTable } from "../../../../connectors/warehouse/tables.js";
import { loadAnswers, loadResponse } from "../../../../engine/load/load-response.js";
import { compileMapping } from "../../../../engine/normalize/mapping.js";
import { migrateToLatest } from "../../../../store/migrate.js";
import { firstCall, pipelineFrom, rows } from "../../../engine/fixtures.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../../../helpers/warehouses.js";

/** A pipeline whose parents have a one- or two-column key and two child tables. */
const yaml = (key: string, mode: string) => `name: parts
skill: patent-core-bibliography
records:
  path: data
  table: parts
  key: ${key}
  mode: ${mode}
  columns:
    shelf: text
    pn: text
    title: text
  children:
    - { path: tags, table: part_tags, valueColumn: tag }
    - { path: people, table: part_people, columns: { name: text, note: text } }
`;

const call = (hash: string) => firstCall("patent-core-bibliography", hash);

describe.each(WAREHOUSE_KINDS)("child tables through loadResponse on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      await migrateToLatest(w);
      return () => w.close();
    });

    async function load(pipelineYaml: string, data: unknown, hash: string) {
      const pipeline = pipelineFrom(pipelineYaml);
      const mapping = compileMapping(pipeline.records);
      for (const t of [mapping.table, ...mapping.children]) await ensureTable(w, t);
      const c = { pipeline, params: {}, mapping };
      return loadResponse(w, c, call(hash), data, new Date().toISOString(), "run-1", { kind: "cached" });
    }

    /** Each answer's load as its ledger row records it, by request hash. */
    const loadsRecorded = async () =>
      (
        await rows<{ request_hash: string; loaded_rows: number }>(
          w,
          "select request_hash, loaded_rows from skillsync_calls where loaded_rows is not null order by request_hash",
        )
      ).map((l) => [l.request_hash, Number(l.loaded_rows)]);

    it.each([
      ["[pn]", "one-column"],
      ["[shelf, pn]", "two-column"],
    ])("a merge replaces each merged parent's children (%s key: %s)", async (key) => {
      const p = yaml(key, "merge");
      const first = await load(
        p,
        {
          data: [
            { shelf: "s", pn: "A", title: "a", tags: ["x", "y", "z"], people: [{ name: 'Ann, "A"' }] },
            { shelf: "s", pn: "B", title: "b", tags: ["keep"], people: [] },
          ],
        },
        "h1",
      );
      expect(first).toEqual({ rows: 2 + 4 + 1, rejected: 0 });
      const second = await load(
        p,
        {
          data: [
            { shelf: "s", pn: "A", title: "a2", tags: ["only"], people: [{ name: "Bob\nSmith", note: "" }] },
          ],
        },
        "h2",
      );
      expect(second.rows).toBe(3);
      const tags = await rows<{ pn: string; position: number; tag: string }>(
        w,
        "select pn, position, tag from part_tags order by pn, position",
      );
      expect(tags.map((t) => [t.pn, Number(t.position), t.tag])).toEqual([
        ["A", 1, "only"],
        ["B", 1, "keep"],
      ]);
      const people = await rows<{ pn: string; name: string; note: string | null }>(
        w,
        "select pn, name, note from part_people order by pn, position",
      );
      expect(people).toEqual([{ pn: "A", name: "Bob\nSmith", note: "" }]);
      const parents = await rows<{ pn: string; title: string }>(w, "select pn, title from parts order by pn");
      expect(parents).toEqual([
        { pn: "A", title: "a2" },
        { pn: "B", title: "b" },
      ]);
      expect(await loadsRecorded()).toEqual([
        ["h1", 7],
        ["h2", 3],
      ]);
    });

    it("append keeps every parent and child row", async () => {
      const p = yaml("[pn]", "append");
      const data = { data: [{ shelf: "s", pn: "A", title: "a", tags: ["x", "y"], people: [] }] };
      await load(p, data, "h1");
      await load(p, data, "h2");
      const n = await rows<{ n: number }>(w, "select count(*) as n from part_tags");
      expect(Number(n[0]!.n)).toBe(4);
      const m = await rows<{ n: number }>(w, "select count(*) as n from parts");
      expect(Number(m[0]!.n)).toBe(2);
    });

    it.each(["merge", "append"])(
      "answers loaded in one group end as if loaded one by one (%s)",
      async (mode) => {
        const p = pipelineFrom(yaml("[pn]", mode));
        const mapping = compileMapping(p.records);
        for (const t of [mapping.table, ...mapping.children]) await ensureTable(w, t);
        const c = { pipeline: p, params: {}, mapping };
        // A and B come again in later answers: their children must be the last answer's alone.
        const datas = [
          { data: [{ shelf: "s", pn: "A", title: "a1", tags: ["x", "y"], people: [{ name: "Ann" }] }] },
          {
            data: [
              { shelf: "s", pn: "B", title: "b1", tags: ["b"], people: [] },
              { pn: "A", title: "a2", tags: ["z"] },
            ],
          },
          {
            data: [
              { shelf: "s", pn: "B", title: "b2", tags: [], people: [{ name: "Bo" }] },
              { title: "no key" },
            ],
          },
        ];
        const at = "2025-06-01T00:00:00.000Z";
        const grouped = await loadAnswers(
          w,
          c,
          "run-1",
          datas.map((data, i) => ({ call: call(`g${i}`), data, receivedAt: at, ledger: { kind: "cached" } })),
        );
        const snapshot = async () => ({
          parts: await rows(w, "select pn, title from parts order by pn, title"),
          tags: await rows(w, "select pn, position, tag from part_tags order by pn, position, tag"),
          people: await rows(w, "select pn, name from part_people order by pn, name"),
          rejects: await rows(
            w,
            "select request_hash, table_name from skillsync_rejects order by request_hash",
          ),
        });
        const together = await snapshot();
        const recordedTogether = await loadsRecorded();
        for (const t of ["parts", "part_tags", "part_people", "skillsync_rejects", "skillsync_calls"])
          await rows(w, `delete from ${t}`);
        const alone = { rows: 0, rejected: 0 };
        for (const [i, data] of datas.entries()) {
          const r = await loadResponse(w, c, call(`g${i}`), data, at, "run-1", { kind: "cached" });
          alone.rows += r.rows;
          alone.rejected += r.rejected;
        }
        expect(await snapshot()).toEqual(together);
        expect({ rows: grouped.rows, rejected: grouped.rejected }).toEqual(alone);
        expect(together.rejects).toEqual([{ request_hash: "g2", table_name: "parts" }]);
        // Each answer's rows as its own load counts them: the third brings B's parent and one child.
        expect(recordedTogether).toEqual(await loadsRecorded());
        expect(recordedTogether.map(([hash]) => hash)).toEqual(["g0", "g1", "g2"]);
      },
    );
  });
});
