import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { knownPublicationNumber } from "../../emulator/generate/patent-numbers.js";
import { type PatentProfile, patentProfile } from "../../emulator/generate/patent-profile.js";
import { patentIdentifierData } from "../../emulator/generate/patent-records.js";
import { Rng } from "../../emulator/random.js";
import { runPipelines } from "../../engine/run/runner.js";
import { builtin, count, rows } from "../engine/fixtures.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

/** Publication numbers the emulator knows, picked for what a test needs. */
function patents(n: number, want: (p: PatentProfile) => boolean, seed = 7): string[] {
  const rng = new Rng(seed);
  const out = new Set<string>();
  for (let i = 0; out.size < n && i < 10_000; i++) {
    const pn = knownPublicationNumber(rng);
    if (want(patentProfile(pn))) out.add(pn);
  }
  return [...out];
}

type Rec = Record<string, unknown>;
const records = (slug: Parameters<typeof patentIdentifierData>[0], body: Rec) =>
  patentIdentifierData(slug, body)["data"] as Rec[];

describe.each(WAREHOUSE_KINDS)("patent text and image pipelines on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    it("translates claims into cn and en, one row per patent and language", async () => {
      const { client } = await emulatorWithClient();
      const pns = patents(3, (p) => !p.contentUnavailable);
      for (const lang of ["cn", "en"]) {
        const s = await runPipelines({
          warehouse: w,
          client,
          pipelines: builtin("patent-claims-translation"),
          params: { patent: pns, lang: [lang] },
        });
        expect(s.status).toBe("succeeded");
      }
      const cn = await rows<{ publication_number: string; claims: string }>(
        w,
        "select publication_number, claims from patent_claims_translations where lang = 'cn' order by 1",
      );
      const expected = records("patent-claims-translation", {
        patentNumber: pns.join(","),
        lang: "cn",
        replaceByRelated: 0,
      });
      expect(cn).toEqual(
        expected
          .map((r) => ({ publication_number: r["pn"], claims: r["claims"] }))
          .sort((a, b) => String(a.publication_number).localeCompare(String(b.publication_number))),
      );
      for (const r of cn) expect(r.claims).toMatch(/权利要求/);
      expect(await count(w, "patent_claims_translations", "lang = 'en'")).toBe(pns.length);
    });

    it("pages full-text images by offset until a short page, asking for no empty page", async () => {
      const { emulator, client } = await emulatorWithClient();
      const [pn] = patents(1, (p) => p.imageCount >= 12 && p.imageCount % 5 !== 0);
      const n = patentProfile(pn!).imageCount;
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("patent-fulltext-images"),
        params: { patent: [pn!], limit: ["5"], pages: ["20"] },
      });
      expect(s.status).toBe("succeeded");
      // Offsets 0, 5, 10, …: the short last page (n is not a multiple of 5) ends the paging.
      expect(emulator.ledger().calls).toHaveLength(Math.ceil(n / 5));
      const list = await rows<{ image_number: number; image_path: string }>(
        w,
        `select image_number, image_path from patent_fulltext_image_list
         where publication_number = '${pn}' order by image_number`,
      );
      expect(list.map((r) => Number(r.image_number))).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      const expected = records("patent-fulltext-images", { patentNumber: pn, limit: "100" });
      expect(list.map((r) => r.image_path)).toEqual(expected.map((r) => r["fulltextImagePath"]));
      const offsets = await rows<{ o: number }>(
        w,
        "select distinct request_offset as o from patent_fulltext_images order by 1",
      );
      expect(offsets.map((r) => Number(r.o))).toEqual(
        Array.from({ length: Math.ceil(n / 5) }, (_, i) => i * 5),
      );
    });

    it("refuses a limit over 100 before sending", async () => {
      const { emulator, client } = await emulatorWithClient();
      const [pn] = patents(1, () => true);
      await expect(
        runPipelines({
          warehouse: w,
          client,
          pipelines: builtin("patent-fulltext-images"),
          params: { patent: [pn!], limit: ["500"] },
        }),
      ).rejects.toThrow(/limit must be at most 100/);
      expect(emulator.ledger().calls).toHaveLength(0);
    });

    it("loads descriptions, translations, abstract images, references and detailed bibliographies", async () => {
      const { client } = await emulatorWithClient();
      const pns = patents(4, (p) => !p.contentUnavailable, 11);
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin(
          "patent-description",
          "patent-description-translation",
          "patent-title-abstract-translation",
          "patent-abstract-image",
          "patent-references",
          "patent-detailed-bibliography",
        ),
        params: { patent: pns, lang: ["jp"] },
      });
      expect(s.status).toBe("succeeded");
      const body = { patentNumber: pns.join(",") };

      const paragraphs = records("patent-description-data", { ...body, replaceByRelated: "0" });
      const expectedParagraphs = paragraphs.reduce((n, r) => n + (r["description"] as unknown[]).length, 0);
      expect(await count(w, "patent_description_paragraphs")).toBe(expectedParagraphs);
      const [first] = await rows<{ num: string; text: string }>(
        w,
        `select num, text from patent_description_paragraphs
         where publication_number = '${pns[0]}' order by position limit 1`,
      );
      expect(first?.num).toBe("0001");

      const jp = await rows<{ description: string }>(
        w,
        "select description from patent_description_translations where lang = 'jp'",
      );
      expect(jp).toHaveLength(pns.length);
      for (const r of jp) expect(r.description).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);

      const titles = await rows<{ publication_number: string; title: string; abstract: string }>(
        w,
        "select publication_number, title, abstract from patent_title_abstract_translations where lang = 'jp'",
      );
      const expectedTitles = records("patent-title-abstract-translation", { ...body, lang: "jp" });
      expect(new Set(titles.map((t) => t.title))).toEqual(new Set(expectedTitles.map((t) => t["title"])));

      const drawings = await rows<{ publication_number: string; abstract_drawing_path: string | null }>(
        w,
        "select publication_number, abstract_drawing_path from patent_abstract_images order by 1",
      );
      expect(drawings.map((d) => d.abstract_drawing_path !== null)).toEqual(
        [...pns].sort().map((pn) => patentProfile(pn).hasAbstractDrawing),
      );

      const cited = pns.reduce((n, pn) => n + patentProfile(pn).citedPatents.length, 0);
      expect(await count(w, "patent_reference_patents")).toBe(cited);
      const others = pns.reduce((n, pn) => n + patentProfile(pn).citedNonPatents.length, 0);
      expect(await count(w, "patent_reference_others", "text is not null")).toBe(others);

      // Who examined and who applied, and the classifications by scheme: questions for the child tables.
      const parties = await rows<{ role: string; n: number }>(
        w,
        "select role, count(*) as n from patent_detailed_parties group by role order by role",
      );
      const roles = Object.fromEntries(parties.map((p) => [p.role, Number(p.n)]));
      expect(roles["applicant"]).toBe(pns.reduce((n, pn) => n + patentProfile(pn).applicants.length, 0));
      expect(roles["agent"]).toBe(pns.length);
      const ipcr = await rows<{ symbol: string; main: unknown }>(
        w,
        "select symbol, main from patent_detailed_classifications where scheme = 'IPCR' and position = 1",
      );
      expect(new Set(ipcr.map((c) => c.symbol))).toEqual(new Set(pns.map((pn) => patentProfile(pn).ipcMain)));
      for (const c of ipcr) expect([true, 1]).toContain(c.main);
      const expiry = await rows<{ expiry_date: string }>(
        w,
        "select expiry_date from patent_detailed_bibliography",
      );
      for (const e of expiry) expect(e.expiry_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });

    it("chains from patent search: translations of the found patents not yet translated into the asked language", async () => {
      const { emulator, client } = await emulatorWithClient();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("patent-search", "patent-bibliography", "patent-title-abstract-translation"),
        params: { q: ["drone battery"], lang: ["cn"] },
      });
      expect(s.status).toBe("succeeded");
      const loaded = await count(w, "patent_bibliography");
      expect(loaded).toBeGreaterThan(0);
      expect(await count(w, "patent_title_abstract_translations", "lang = 'cn'")).toBe(loaded);
      const calls = emulator.ledger().calls.length;
      // Another language is another set of rows; the same language again asks for nothing.
      await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("patent-title-abstract-translation"),
        params: { lang: ["cn"] },
      });
      expect(emulator.ledger().calls.length).toBe(calls);
    });
  });
});
