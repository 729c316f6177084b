import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { isoDay } from "../../emulator/generate/dates.js";
import { patentProfile } from "../../emulator/generate/patent-profile.js";
import { patentIdentifierData } from "../../emulator/generate/patent-records.js";
import type { ORGANISATIONS } from "../../emulator/generate/vocabulary.js";
import { runPipelines } from "../../engine/run/runner.js";
import { builtin, rows } from "../engine/fixtures.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

/** The emulator's organisations as an analyst would write them once normalised (written by hand). */
const NORMALISED: Record<(typeof ORGANISATIONS)[number]["name"], string> = {
  'O\'Brien "Tech" GmbH': "OBRIEN TECH",
  "株式会社 テスト": "テスト",
  "Société d'Équipements Généraux, S.A.": "SOCIETE DEQUIPEMENTS GENERAUX",
  "Acme Widgets, Inc.": "ACME WIDGETS",
  北京创新科技有限公司: "北京创新科技",
  '"Nordic" Solutions AB': "NORDIC SOLUTIONS",
  "Ünal Makine Sanayi A.Ş.": "UNAL MAKINE SANAYI",
  "Hanbit Electronics Co., Ltd.": "HANBIT ELECTRONICS",
  "Bluefield Medical, LLC": "BLUEFIELD MEDICAL",
  "Fraunhofer-Gesellschaft zur Förderung e.V.": "FRAUNHOFER GESELLSCHAFT ZUR FORDERUNG",
  "Kyōwa Seisakusho K.K.": "KYOWA SEISAKUSHO",
  "Pinewood Robotics Ltd.": "PINEWOOD ROBOTICS",
};

/** The DOCDB form of an emulator number, from its profile's country and kind (US applications: year + 6 digits). */
function docdbOf(pn: string): string {
  const { country, kind } = patentProfile(pn);
  const serial = pn.slice(2, pn.length - kind.length);
  return `${country}-${country === "US" && serial.length === 11 ? serial.slice(0, 4) + serial.slice(5) : serial}-${kind}`;
}

type Rec = Record<string, unknown>;
const answer = (slug: Parameters<typeof patentIdentifierData>[0], pns: string[]) =>
  patentIdentifierData(slug, { patentNumber: pns.join(",") })["data"] as Rec[];
const edge = (citing: unknown, cited: unknown) => `${String(citing)} → ${String(cited)}`;
const sorted = (list: string[]) => [...list].sort();

describe.each(WAREHOUSE_KINDS)("the patent model on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    const run = async (client: Parameters<typeof runPipelines>[0]["client"], ...names: string[]) => {
      const params = names.includes("patent-search") ? { q: ["battery cooling"], num: ["30"] } : {};
      const s = await runPipelines({ warehouse: w, client, pipelines: builtin(...names), params });
      expect(s.status, names.join(", ")).toBe("succeeded");
    };

    it("derives DOCDB numbers, priority and grant dates, family ids, normalised names and one citation edge view", async () => {
      const { client } = await emulatorWithClient();
      await run(client, "patent-search");
      await run(client, "patent-bibliography");

      const bib = await rows<{
        publication_number: string;
        docdb_number: string;
        publication_date: string;
        earliest_priority_date: string;
        grant_date: string | null;
      }>(
        w,
        `select publication_number, docdb_number, publication_date, earliest_priority_date, grant_date
         from patent_bibliography order by publication_number`,
      );
      const pns = bib.map((b) => b.publication_number);
      expect(pns.length).toBeGreaterThan(10);
      // The sample has grants and applications, and US pre-grant publications (whose DOCDB serial changes).
      expect(pns.some((pn) => /B\d?$/.test(pn))).toBe(true);
      expect(pns.some((pn) => /A\d?$/.test(pn))).toBe(true);
      expect(pns.some((pn) => /^US20\d{9}A\d$/.test(pn))).toBe(true);
      for (const b of bib) {
        const p = patentProfile(b.publication_number);
        expect(b.docdb_number, b.publication_number).toBe(docdbOf(b.publication_number));
        expect(b.earliest_priority_date).toBe(sorted(p.priorityClaims.map((c) => c.date))[0]);
        expect(b.grant_date).toBe(p.granted ? isoDay(p.publicationDay) : null);
      }

      const assignees = await rows<{ name: string; normalized_name: string }>(
        w,
        "select name, normalized_name from patent_assignees",
      );
      expect(assignees.length).toBeGreaterThan(pns.length);
      for (const a of assignees)
        expect(a.normalized_name, a.name).toBe(NORMALISED[a.name as keyof typeof NORMALISED]);

      // Before patent-family has loaded, the view has the bibliography's rows without family ids.
      const before = await rows<{ simple_family_id: unknown }>(
        w,
        "select simple_family_id from patent_publications",
      );
      expect(before).toHaveLength(pns.length);
      expect(before.every((r) => r.simple_family_id === null)).toBe(true);

      await run(client, "patent-family", "patent-cited-by", "patent-references");
      // A grant date only a search result knows (an application granted later) fills the view's.
      const application = pns.find((pn) => !patentProfile(pn).granted)!;
      await rows(
        w,
        `update patent_search_results set grant_date = '2024-02-03' where publication_number = '${application}'`,
      );

      const model = await rows<{
        publication_number: string;
        docdb_number: string;
        priority_date: string;
        grant_date: string | null;
        simple_family_id: number;
        inpadoc_family_id: string;
        vendor_family_id: string;
      }>(w, "select * from patent_publications order by publication_number");
      expect(model.map((m) => m.publication_number)).toEqual(pns);
      for (const [i, m] of model.entries()) {
        const p = patentProfile(m.publication_number);
        expect(m.docdb_number).toBe(bib[i]!.docdb_number);
        expect(m.priority_date).toBe(bib[i]!.earliest_priority_date);
        expect(m.grant_date).toBe(m.publication_number === application ? "2024-02-03" : bib[i]!.grant_date);
        expect(Number(m.simple_family_id)).toBe(p.family.simpleId);
        expect(String(m.inpadoc_family_id)).toBe(String(p.family.inpadocId));
        expect(String(m.vendor_family_id)).toBe(String(p.family.vendorId));
      }

      const edges = await rows<{ citing: string; cited: string; source: string; load_id: number | null }>(
        w,
        "select citing, cited, source, load_id from patent_citation_edges",
      );
      const of = (source: string) =>
        sorted(edges.filter((e) => e.source === source).map((e) => edge(e.citing, e.cited)));
      const cites = answer("patent-core-bibliography", pns).flatMap((r) =>
        (r["citedPatents"] as Rec[]).map((c) => edge(r["pn"], c["pn"])),
      );
      const citedBy = answer("patent-cited-by", pns).flatMap((r) =>
        (r["citedByPatents"] as Rec[]).map((c) => edge(c["pn"], r["pn"])),
      );
      expect(cites.length).toBeGreaterThan(0);
      expect(citedBy.length).toBeGreaterThan(0);
      expect(of("patent-bibliography")).toEqual(sorted(cites));
      expect(of("patent-references")).toEqual(sorted(cites));
      expect(of("patent-cited-by")).toEqual(sorted(citedBy));
      expect(edges).toHaveLength(2 * cites.length + citedBy.length);
      expect(edges.every((e) => e.load_id !== null)).toBe(true);
    });
  });
});
