import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator/index.js";
import { emulators, post } from "./helpers.js";

const emus = emulators();
let emu: Emulator;
beforeAll(async () => {
  emu = await emus.start();
});
afterAll(() => emus.stopAll());

interface Product {
  asin: string;
  position: number;
  sponsored: boolean;
  price: string | null;
  extractedPrice: number | null;
  title: string;
  availableDate: string;
}

async function allPages(keyword: string) {
  const pages: { products: Product[]; total: number; totalPage: number }[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await post(emu, "marketplace-search", { keyword, page });
    pages.push(res.json.data);
    if (res.json.data.products.length === 0) break;
  }
  return pages;
}

describe("marketplace-search", () => {
  it("pages end: every page but the last has 20 products, the page after the end is empty, counts add up to total", async () => {
    for (const keyword of ["desk lamp", "yoga mat", "café crème"]) {
      const pages = await allPages(keyword);
      const total = pages[0]?.total ?? 0;
      expect(total).toBeGreaterThanOrEqual(25);
      expect(total).toBeLessThanOrEqual(120);
      const last = pages[pages.length - 1];
      expect(last?.products).toEqual([]);
      const counts = pages.map((p) => p.products.length);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(pages.length - 1).toBe(pages[0]?.totalPage);
      for (const p of pages.slice(0, -2)) expect(p.products.length).toBe(20);
    }
  });

  it("numbers positions 1..n per page and gives prices as text and numbers, sometimes null", async () => {
    const pages = await allPages("kitchen organizer");
    const products = pages.flatMap((p) => p.products);
    for (const p of pages) expect(p.products.map((x) => x.position)).toEqual(p.products.map((_, i) => i + 1));
    for (const p of products) {
      expect(p.asin).toMatch(/^B0[A-Z0-9]{8}$/);
      expect(p.availableDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (p.price === null) expect(p.extractedPrice).toBeNull();
      else expect(p.price).toBe(`$${p.extractedPrice?.toFixed(2)}`);
    }
    expect(products.some((p) => p.price === null)).toBe(true);
    expect(products.some((p) => /[^\x00-\x7f]/.test(p.title))).toBe(true);
    expect(products.some((p) => p.title.includes('"'))).toBe(true);
  });

  it("shows a sponsored copy of an organic product on the same page", async () => {
    let found = 0;
    for (const keyword of ["desk lamp", "yoga mat"]) {
      for (const page of await allPages(keyword)) {
        const byAsin = new Map<string, Product[]>();
        for (const p of page.products) byAsin.set(p.asin, [...(byAsin.get(p.asin) ?? []), p]);
        for (const copies of byAsin.values()) {
          if (copies.length < 2) continue;
          expect(copies.map((c) => c.sponsored).sort()).toEqual([false, true]);
          found++;
        }
      }
    }
    expect(found).toBeGreaterThan(0);
  });
});

describe("websearch-patent-search", () => {
  it("gives num results per page until a deterministic total, and every publication number is known", async () => {
    const numbers: string[] = [];
    let total = 0;
    for (let page = 1; page <= 10; page++) {
      const res = await post(emu, "websearch-patent-search", { q: "solar roof tile", num: 10, page });
      const data = res.json.data;
      total = data.total;
      expect(data.searchInformation.totalResults).toBe(total);
      expect(data.pagination.current).toBe(page);
      numbers.push(...data.results.map((r: { publicationNumber: string }) => r.publicationNumber));
      if (data.results.length < 10) {
        expect(data.pagination.next).toBeUndefined();
        break;
      }
      if (page * 10 < total) expect(data.pagination.next).toBe(page + 1);
    }
    expect(total).toBeGreaterThanOrEqual(15);
    // The query's words find that many titles in the index; ten pages hold them all.
    expect(total).toBeLessThan(100);
    expect(numbers).toHaveLength(total);
    for (const pn of numbers) expect(pn).toMatch(/^(US|EP|CN|JP|WO|KR|DE)D?\d+[A-Z]\d?$/);
    const bib = await post(emu, "patent-core-bibliography", {
      patentNumber: numbers.slice(0, 100).join(","),
    });
    expect(bib.json.data.total).toBe(Math.min(100, numbers.length));
    const first = (await post(emu, "websearch-patent-search", { q: "solar roof tile" })).json.data.results[0];
    expect(first.patentId).toBe(`patent/${first.publicationNumber}/en`);
    expect(first.publicationDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("honours a country filter", async () => {
    const res = await post(emu, "websearch-patent-search", { q: "battery", country: "EP", num: 20 });
    for (const r of res.json.data.results) expect(r.publicationNumber.startsWith("EP")).toBe(true);
  });
});

describe("patent-identifier operations", () => {
  it("leave unknown identifiers out, so total is less than asked", async () => {
    const search = await post(emu, "websearch-patent-search", { q: "robot", num: 20 });
    const known: string[] = search.json.data.results.map(
      (r: { publicationNumber: string }) => r.publicationNumber,
    );
    const asked = [...known.slice(0, 5), "NOT-A-PATENT", "12345", ...known.slice(5, 8)];
    const res = await post(emu, "patent-legal-status-data", { patentNumber: asked.join(",") });
    expect(res.json.data.total).toBe(8);
    expect(res.json.data.data.map((r: { pn: string }) => r.pn)).toEqual([
      ...known.slice(0, 5),
      ...known.slice(5, 8),
    ]);
    // About one in ten well-formed numbers is unknown too.
    const made = Array.from({ length: 100 }, (_, i) => `US${10_000_000 + i * 7919}B2`);
    const many = await post(emu, "patent-family-data", { patentNumber: made.join(",") });
    expect(many.json.data.total).toBeLessThan(100);
    expect(many.json.data.total).toBeGreaterThan(75);
  });

  it("prefers patentId over patentNumber and accepts the patent/<pn>/en form", async () => {
    const pn = (await post(emu, "websearch-patent-search", { q: "hinge" })).json.data.results[0]
      .publicationNumber;
    const res = await post(emu, "patent-family-data", {
      patentId: `patent/${pn}/en`,
      patentNumber: "US99999999B2",
    });
    expect(res.json.data.data.map((r: { pn: string }) => r.pn)).toEqual([pn]);
  });

  it("gives nested bibliographic data with awkward names, integer dates and classifications", async () => {
    const pns = (await post(emu, "websearch-patent-search", { q: "filter", num: 40 })).json.data.results.map(
      (r: { publicationNumber: string }) => r.publicationNumber,
    );
    const res = await post(emu, "patent-core-bibliography", { patentNumber: pns.join(",") });
    const records = res.json.data.data;
    expect(res.json.data.allRecordsCount).toBe(records.length);
    const names: string[] = records.flatMap(
      (r: { applicants: { name: string }[]; inventors: { name: string }[] }) =>
        [...r.applicants, ...r.inventors].map((p) => p.name),
    );
    expect(names.some((n) => n.includes(","))).toBe(true);
    expect(names.some((n) => n.includes('"'))).toBe(true);
    expect(names.some((n) => /[^\x00-\x7f]/.test(n))).toBe(true);
    for (const r of records) {
      expect(Number.isInteger(r.publicationDate)).toBe(true);
      expect(String(r.publicationDate)).toMatch(/^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/);
      expect(r.applicationDate).toBeLessThan(r.publicationDate);
      expect(typeof r.ipcMain).toBe("string");
      expect(Array.isArray(r.ipcFurther)).toBe(true);
      for (const c of r.priorityClaims)
        expect(c).toEqual({
          number: expect.any(String),
          date: expect.any(String),
          country: expect.any(String),
        });
      for (const c of r.citedPatents) expect(typeof c.pn).toBe("string");
    }
  });

  it("gives legal events, families, citations and claims with the documented shapes", async () => {
    const pn = (await post(emu, "websearch-patent-search", { q: "toothbrush", status: "GRANT" })).json.data
      .results[0].publicationNumber;
    const legal = (await post(emu, "patent-legal-status-data", { patentNumber: pn })).json.data.data[0];
    expect(legal.legalStatus.length).toBeGreaterThan(0);
    expect(legal.simpleLegalStatus[0]).toMatch(/^(Active|Inactive|Pending)$/);
    expect(Number.isInteger(legal.legalDate)).toBe(true);
    for (const e of legal.eventStatus) expect(e.eventDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const family = (await post(emu, "patent-family-data", { patentNumber: pn })).json.data.data[0];
    expect(Number.isInteger(family.simpleFamilyId)).toBe(true);
    expect(family.simpleFamily).toContain(pn);
    const citedBy = (await post(emu, "patent-cited-by", { patentNumber: pn })).json.data.data[0];
    expect(citedBy.citedBy5y).toBeGreaterThanOrEqual(citedBy.citedByPatents.length);
    const claims = (await post(emu, "patent-claims", { patentNumber: pn, replaceByRelated: "1" })).json.data
      .data[0];
    expect(claims.claimCount).toBe(claims.claims.length);
    expect(claims.claims[0]).toEqual({ num: 1, text: expect.stringMatching(/^1\. /) });
  });

  it("translates into the requested language", async () => {
    const body = { patentNumber: "US11234567B2,EP3456789A1,CN112345678A,JP2020123456A,WO2021123456A1" };
    const cn = (await post(emu, "patent-title-abstract-translation", { ...body, lang: "cn" })).json.data
      .data[0];
    const jp = (await post(emu, "patent-claims-translation", { ...body, lang: "jp", replaceByRelated: 1 }))
      .json.data.data[0];
    const en = (await post(emu, "patent-title-abstract-translation", body)).json.data.data[0];
    expect(cn.title).toMatch(/[\u4e00-\u9fff]/);
    expect(jp.claims).toMatch(/請求項/);
    expect(en.title).toMatch(/^[\x20-\x7e]+$/);
  });

  it("pages full-text images with limit and offset", async () => {
    const pns = (await post(emu, "websearch-patent-search", { q: "images", num: 20 })).json.data.results.map(
      (r: { publicationNumber: string }) => r.publicationNumber,
    );
    let pn = "";
    let count = 0;
    for (const p of pns) {
      const all = (await post(emu, "patent-fulltext-images", { patentNumber: p })).json.data;
      if (all.total >= 6) {
        pn = p;
        count = all.total;
        break;
      }
    }
    expect(count).toBeGreaterThanOrEqual(6);
    const page = (await post(emu, "patent-fulltext-images", { patentNumber: pn, limit: "3", offset: "2" }))
      .json.data;
    expect(page.total).toBe(3);
    expect(
      page.data.map((r: { fulltextImagePath: string }) => r.fulltextImagePath.match(/(\d{3})\.\w+$/)?.[1]),
    ).toEqual(["003", "004", "005"]);
    const tail = (await post(emu, "patent-fulltext-images", { patentNumber: pn, offset: String(count - 1) }))
      .json.data;
    expect(tail.total).toBe(1);
  });
});

describe("IP-risk operations", () => {
  it("give TRO risk records, copyright matches with similarity text, design records and cosine scores", async () => {
    const tros = await Promise.all(
      ["a", "b", "c", "d", "e"].map((x) =>
        post(emu, "vendora-product-tro-detection", { mainProductImage: `https://img.example/${x}.jpg` }),
      ),
    );
    const results = tros.flatMap((t) => t.json.data.results);
    expect(tros[0]?.json.data.status).toBe("completed");
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(["high", "medium", "low"]).toContain(r.riskLevel);
      expect(typeof r.riskScore).toBe("number");
      expect(Number.isInteger(r.plaintiffId)).toBe(true);
    }
    const copyright = (
      await post(emu, "vendorb-copyright-detection", {
        imageUrl: "https://img.example/x.jpg",
        topNumber: 10,
        enableRadar: true,
      })
    ).json.data;
    expect(copyright.data.length).toBeLessThanOrEqual(10);
    for (const m of copyright.data) expect(m.similarity).toMatch(/^0\.\d{2}$/);
    const design = (
      await post(emu, "vendorb-detection-patent-design", {
        imageUrl: "https://img.example/x.jpg",
        queryMode: "line",
        topNumber: 5,
        regions: "US,CN",
      })
    ).json.data;
    expect(design.data.length).toBeLessThanOrEqual(5);
    for (const d of design.data) expect(["US", "CN"]).toContain(d.registrationOfficeCode);
    const parts = await post(emu, "vendorb-gun-parts-search", { imageUrl: "https://img.example/y.jpg" });
    for (const p of parts.json.data.data) expect(typeof p.cosine).toBe("number");
  });
});
