import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { mappingWatch } from "../../../engine/normalize/record-check.js";
import { recordsSchema } from "../../../schema/pipeline.js";
import { afterTest } from "../../helpers/after-test.js";
import { cli } from "../../helpers/cli.js";
import { DEMO_KEY, emulatorWithClient } from "../../helpers/emulator.js";
import { writePipelineFile } from "../../helpers/pipeline-files.js";
import { freshWarehouseUrl } from "../../helpers/warehouses.js";

/** Applicants as patent-core-bibliography answers them (name, country), with one member they lack. */
const PIPELINE = `name: applicant-nationality
skill: patent-core-bibliography
input:
  name: patent
  from: { list: [US10000001B2, US10000002B2] }
request:
  patentNumber: "{{patent}}"
records:
  path: data
  table: nat_publications
  key: [publication_number]
  columns:
    publication_number: { from: pn }
  children:
    - path: applicants
      table: nat_applicants
      columns:
        name: text
        nationality: text
`;

describe("a child table's column that no element fills", () => {
  it("is a run warning naming the child table, the column and its member path", async () => {
    const { emulator } = await emulatorWithClient();
    const env = { SKILL_API_BASE_URL: emulator.url, SKILL_API_KEY: DEMO_KEY };
    const file = writePipelineFile(PIPELINE);
    afterTest(() => rmSync(dirname(file), { recursive: true, force: true }));
    const r = await cli(["run", file, "--db", freshWarehouseUrl("sqlite"), "--json"], env);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out) as { warnings: string[] };
    expect(summary.warnings).toContain(
      "applicant-nationality: no record has the member of column(s) nat_applicants.nationality (from applicants[].nationality): null in every row",
    );
  });

  it("counts once the child's path gave elements, in any of its paths; a value column is not a member", () => {
    const spec = recordsSchema.parse({
      path: "items",
      table: "t",
      key: ["id"],
      columns: { id: "text" },
      children: [
        { path: [{ path: "a" }, { path: "b" }], table: "t_parts", columns: { code: "text", note: "text" } },
        { path: "tags", table: "t_tags", columns: { label: "text" }, valueColumn: "label" },
      ],
    });
    const watch = mappingWatch(spec);
    watch.observe({ items: [{ id: "1", a: [], b: [], tags: ["x"] }] });
    expect(watch.quality().emptyColumns).toEqual([]);
    watch.observe({ items: [{ id: "2", a: [{ code: "c" }], b: [{ code: "d", other: 1 }], tags: [] }] });
    expect(watch.quality().emptyColumns).toEqual(["t_parts.note (from a[].note or b[].note)"]);
    watch.observe({ items: [{ id: "3", b: [{ note: "n" }] }] });
    expect(watch.quality().emptyColumns).toEqual([]);
  });

  it("takes a member the answer gives as null, or an object on its path given as null, as there", () => {
    // As ip-design-patent-check's matches without the radar: radarResult is null, not missing.
    const spec = recordsSchema.parse({
      path: "data",
      table: "checks",
      key: ["id"],
      columns: { id: "text", verdict: { from: "radar.same" } },
      children: [
        {
          path: "data",
          table: "matches",
          columns: {
            radar_same: { from: "radarResult.same" },
            radar_result: "json",
            loc_two: { from: "locTwo" },
          },
        },
      ],
    });
    const watch = mappingWatch(spec);
    watch.observe({ data: [{ id: "1", radar: null, data: [{ radarResult: null, locTwo: null }] }] });
    expect(watch.quality().emptyColumns).toEqual([]);

    const typo = mappingWatch(spec);
    typo.observe({ data: [{ id: "1", data: [{ radarResult: { other: 1 } }] }] });
    expect(typo.quality().emptyColumns).toEqual([
      "verdict (from radar.same)",
      "matches.radar_same (from data[].radarResult.same)",
      "matches.loc_two (from data[].locTwo)",
    ]);
  });
});
