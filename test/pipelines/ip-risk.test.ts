import { beforeEach, describe, expect, it } from "vitest";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import {
  copyrightDetection,
  designPatentDetection,
  gunPartsSearch,
  troDetection,
} from "../../emulator/generate/ip-risk.js";
import { runPipelines } from "../../engine/run/runner.js";
import { builtin, count, rows } from "../engine/fixtures.js";
import { emulatorWithClient } from "../helpers/emulator.js";
import { freshWarehouseUrl, unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";

type Risk = { riskLevel: string; plaintiffName: string; riskScore: number };

const IMAGES = [
  "https://images.marketplace.example/I/TEST0000001._AC_UL320_.jpg",
  "https://images.marketplace.example/I/TEST0000002._AC_UL320_.jpg",
];

describe.each(WAREHOUSE_KINDS)("IP-risk pipelines on %s", (kind) => {
  describe.skipIf(unavailable(kind))("", () => {
    let w: Warehouse;
    beforeEach(async () => {
      w = await openWarehouse(freshWarehouseUrl(kind));
      return () => w.close();
    });

    it("checks the images of loaded products for TRO risk and names the high-risk products and their plaintiffs", async () => {
      const { emulator, client } = await emulatorWithClient();
      await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("marketplace-search"),
        params: { keyword: ["garden hose"] },
      });
      const images = (
        await rows<{ image_url: string }>(w, "select distinct image_url from marketplace_search_results")
      ).map((r) => r.image_url);
      expect(images.length).toBeGreaterThan(10);

      // No --param image: the SQL alternative checks every loaded product's image, once.
      const s = await runPipelines({ warehouse: w, client, pipelines: builtin("ip-tro-check") });
      expect(s.status).toBe("succeeded");
      const tro = emulator.ledger().calls.filter((c) => c.slug === "vendora-product-tro-detection");
      expect(tro).toHaveLength(images.length);
      expect(await count(w, "ip_tro_checks")).toBe(images.length);

      // What the service said, per image: the view must give exactly the high risks' plaintiffs.
      const expected = new Set<string>();
      let risks = 0;
      for (const image of images) {
        const data = troDetection({ mainProductImage: image, language: "zh" });
        const results = data["results"] as Risk[];
        risks += results.length + (data["nonResults"] as Risk[]).length;
        for (const r of results) if (r.riskLevel === "high") expected.add(`${image} | ${r.plaintiffName}`);
      }
      expect(expected.size).toBeGreaterThan(0);
      expect(await count(w, "ip_tro_risks")).toBe(risks);

      const high = await rows<{
        asin: string;
        image_url: string;
        plaintiff_name: string;
        risk_score: number;
      }>(
        w,
        `select asin, title, image_url, plaintiff_name, risk_score, number_of_cases
         from high_tro_risk_products order by risk_score desc`,
      );
      expect(new Set(high.map((r) => `${r.image_url} | ${r.plaintiff_name}`))).toEqual(expected);
      for (const r of high) {
        expect(r.asin).toMatch(/^B0/);
        expect(typeof r.risk_score).toBe("number");
        expect(r.risk_score).toBeGreaterThanOrEqual(0.8);
      }

      // The same question asked of the tables directly: typed columns, a join a user would write.
      const byPlaintiff = await rows<{ plaintiff_name: string; products: number; cases: number }>(
        w,
        `select r.plaintiff_name, count(distinct m.asin) as products, max(r.number_of_cases) as cases
         from ip_tro_risks r join marketplace_search_results m on m.image_url = r.image_url
         where r.risk_level = 'high' and r.listing = 'result'
         group by r.plaintiff_name order by products desc`,
      );
      expect(byPlaintiff.length).toBe(new Set([...expected].map((e) => e.split(" | ")[1])).size);
      expect(Number(byPlaintiff[0]!.cases)).toBeGreaterThan(0);

      // Checked images are not checked again.
      const again = await runPipelines({ warehouse: w, client, pipelines: builtin("ip-tro-check") });
      expect(again.counters.callsPlanned).toBe(0);
    });

    it("passes the optional members as params: keywords become the ipKeywords list", async () => {
      const { emulator, client } = await emulatorWithClient();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("ip-tro-check"),
        params: {
          image: [IMAGES[0]!],
          keywords: ["sunny days", "pokey dots"],
          description: ["Garden hose, 50 ft"],
          language: ["en"],
        },
      });
      expect(s.status).toBe("succeeded");
      const [call] = emulator.ledger().calls;
      expect(call?.slug).toBe("vendora-product-tro-detection");
      const body = {
        mainProductImage: IMAGES[0],
        description: "Garden hose, 50 ft",
        ipKeywords: ["sunny days", "pokey dots"],
        language: "en",
      };
      const data = troDetection(body);
      const [check] = await rows<{ check_id: string; language: string; status: string }>(
        w,
        "select check_id, language, status from ip_tro_checks",
      );
      expect(check).toEqual({ check_id: data["checkId"], language: "en", status: "completed" });
    });

    it("loads copyright, design-patent and policy-parts matches, typed for the questions users ask", async () => {
      const { client } = await emulatorWithClient();
      const s = await runPipelines({
        warehouse: w,
        client,
        pipelines: builtin("ip-copyright-check", "ip-design-patent-check", "ip-policy-parts-check"),
        params: { image: IMAGES, top: ["20"], regions: ["US,CN"], mode: ["line"] },
      });
      expect(s.status).toBe("succeeded");

      // Copyright: `top` is topNumber for this pipeline; similarity arrives as text and is a number here.
      const copyright = IMAGES.map((i) =>
        copyrightDetection({ imageUrl: i, topNumber: 20, enableRadar: true }),
      );
      const copyMatches = copyright.flatMap((d) => d["data"] as { troCase: boolean }[]);
      expect(await count(w, "ip_copyright_matches")).toBe(copyMatches.length);
      const troCopies = await rows<{ rights_owner: string; similarity: number }>(
        w,
        `select m.rights_owner, m.similarity from ip_copyright_matches m
         join ip_copyright_checks c on c.image_url = m.image_url and c.detect_id = m.detect_id
         where m.tro_case = true and c.top_number = 20 order by m.similarity desc`,
      );
      expect(troCopies).toHaveLength(copyMatches.filter((m) => m.troCase).length);
      for (const r of troCopies) expect(typeof r.similarity).toBe("number");

      // Design patents: every match is in an asked region; dates are dates.
      const design = IMAGES.map((i) =>
        designPatentDetection({ imageUrl: i, queryMode: "line", topNumber: 20, regions: "US,CN" }),
      );
      const designMatches = design.flatMap((d) => d["data"] as { grantDate: number | null }[]);
      expect(await count(w, "ip_design_patent_matches")).toBe(designMatches.length);
      const granted = await rows<{ publication_number: string; grant_date: string; office: string }>(
        w,
        `select publication_number, grant_date, registration_office_code as office
         from ip_design_patent_matches where grant_date is not null and query_mode = 'line'`,
      );
      expect(granted).toHaveLength(designMatches.filter((m) => m.grantDate !== null).length);
      for (const r of granted) {
        expect(r.grant_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(["US", "CN"]).toContain(r.office);
      }
      const [check] = await rows<{ regions: string; top_number: number }>(
        w,
        "select regions, top_number from ip_design_patent_checks limit 1",
      );
      expect(check).toEqual({ regions: "US,CN", top_number: 20 });

      // Policy parts: cosine similarity per look-alike item.
      const parts = IMAGES.flatMap((i) => gunPartsSearch({ imageUrl: i })["data"] as { cosine: number }[]);
      const loaded = await rows<{ cosine: number }>(w, "select cosine from ip_policy_parts_matches");
      expect(loaded.map((r) => r.cosine).sort()).toEqual(parts.map((p) => p.cosine).sort());
    });
  });
});
