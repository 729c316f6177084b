import { describe, expect, it } from "vitest";
import { answerAt, legalStatusAt } from "../../emulator/index.js";
import { afterTest } from "../helpers/after-test.js";
import { emulators, parseCsv, post } from "./helpers.js";

// Every request member the contract (section 4) documents for the operations the emulator answers,
// and a check that the answers obey it. A member the contract adds must get a check here.
const DOCUMENTED: Record<string, readonly string[]> = {
  "websearch-patent-search": [
    "q",
    "num",
    "page",
    "country",
    "language",
    "inventor",
    "assignee",
    "before",
    "after",
    "sort",
    "type",
    "status",
    "patents",
    "scholar",
    "litigation",
    "clustered",
    "dups",
  ],
  "marketplace-search": ["keyword", "page"],
  "patent-identifiers": ["patentId", "patentNumber", "replaceByRelated", "lang", "limit", "offset"],
  "vendora-product-tro-detection": [
    "mainProductImage",
    "referenceImages",
    "otherProductImages",
    "ipImages",
    "referenceText",
    "description",
    "ipKeywords",
    "language",
  ],
  "vendorb-copyright-detection": ["imageUrl", "topNumber", "enableRadar"],
  "vendorb-detection-patent-design": [
    "imageUrl",
    "queryMode",
    "topNumber",
    "regions",
    "productTitle",
    "productDescription",
    "patentStatus",
    "enableRadar",
    "topLoc",
    "sourceLanguage",
  ],
  "vendorb-gun-parts-search": ["imageUrl"],
  "advertising-reports": [
    "connectionId",
    "startDate",
    "endDate",
    "advertiserAccountId",
    "timeUnit",
    "detailLevel",
    "reportId",
    "documentToken",
  ],
};

const DATE = "2026-11-29";
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
type Row = Record<string, any>;
const search = (body: Row, date = DATE): Row =>
  answerAt("websearch-patent-search", { num: 100, ...body }, date);
const pns = (d: Row) => (d["results"] as Row[]).map((r) => r["publicationNumber"] as string);
const bib = (list: string[]) =>
  answerAt("patent-core-bibliography", { patentNumber: list.join(",") }, DATE)["data"] as Row[];
const ymd = (iso: string) => iso.replaceAll("-", "");

/** Every publication number a search finds, all pages. */
function allPns(body: Row): string[] {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const d = search({ ...body, page });
    out.push(...pns(d));
    if (page >= (d["totalPage"] as number)) return out;
  }
}

/** A filtered search finds a subset of the unfiltered one. */
function subsetOf(filtered: Row, q: string): void {
  const all = new Set(allPns({ q }));
  for (const pn of pns(filtered)) expect(all.has(pn)).toBe(true);
}

const Q = "drone battery cooling";

const PATENT_SEARCH: Record<string, () => void | Promise<void>> = {
  q: () => {
    const d = search({ q: Q });
    expect(d["total"]).toBeGreaterThan(10);
    for (const r of d["results"] as Row[]) expect(r["title"]).toMatch(/drone|batter|cooling/i);
  },
  num: () => expect(answerAt("websearch-patent-search", { q: Q, num: 25 }, DATE)["results"]).toHaveLength(25),
  page: () => {
    const all = pns(search({ q: Q }));
    const p2 = answerAt("websearch-patent-search", { q: Q, num: 10, page: 2 }, DATE);
    expect(pns(p2)).toEqual(all.slice(10, 20));
    expect(p2["totalPage"]).toBe(Math.ceil((p2["total"] as number) / 10));
  },
  country: () => {
    const d = search({ q: Q, country: "US,CN" });
    expect(d["total"]).toBeGreaterThan(0);
    for (const r of d["results"] as Row[]) expect(["US", "CN"]).toContain(r["country"]);
    subsetOf(d, Q);
  },
  language: () => {
    const d = search({ q: Q, language: "JAPANESE" });
    expect(d["total"]).toBeGreaterThan(0);
    for (const r of d["results"] as Row[]) expect(r["language"]).toBe("ja");
  },
  inventor: () => {
    const d = search({ q: Q, inventor: "muller" });
    expect(d["total"]).toBeGreaterThan(0);
    for (const b of bib(pns(d)))
      expect((b["inventors"] as Row[]).map((i) => i["name"])).toContain("Müller, Hans");
    for (const r of d["results"] as Row[]) expect(r["inventor"]).toBe("Müller, Hans");
  },
  assignee: () => {
    const d = search({ q: Q, assignee: "Acme Widgets" });
    expect(d["total"]).toBeGreaterThan(0);
    for (const b of bib(pns(d)))
      expect((b["assignees"] as Row[]).map((i) => i["name"])).toContain("Acme Widgets, Inc.");
  },
  after: () => {
    for (const kind of ["priority", "filing", "publication"] as const) {
      const d = search({ q: Q, after: `${kind}:20220101` });
      expect(d["total"]).toBeGreaterThan(0);
      for (const r of d["results"] as Row[]) expect(ymd(r[`${kind}Date`])).toMatch(/^(202[2-9])/);
      subsetOf(d, Q);
    }
  },
  before: () => {
    const d = search({ q: Q, before: "filing:20151231" });
    expect(d["total"]).toBeGreaterThan(0);
    for (const r of d["results"] as Row[]) expect(ymd(r["filingDate"]) <= "20151231").toBe(true);
    // One day: only that day's publications (the daily stream publishes some), never more than unfiltered.
    const day = search({ q: "battery", after: "publication:20261110", before: "publication:20261110" });
    for (const r of day["results"] as Row[]) expect(r["publicationDate"]).toBe("2026-11-10");
    expect(day["total"]).toBeLessThan(search({ q: "battery" })["total"]);
  },
  sort: () => {
    const days = (sort: string) =>
      (search({ q: Q, sort })["results"] as Row[]).map((r) => r["publicationDate"]);
    expect(days("new")).toEqual([...days("new")].sort().reverse());
    expect(days("old")).toEqual([...days("old")].sort());
  },
  type: () => {
    const designs = search({ q: Q, type: "DESIGN" });
    expect(designs["total"]).toBeGreaterThan(0);
    for (const r of designs["results"] as Row[]) expect(r["title"]).toMatch(/^Ornamental design/);
    const patents = search({ q: Q, type: "PATENT" });
    expect(patents["total"] + designs["total"]).toBe(search({ q: Q })["total"]);
    for (const r of patents["results"] as Row[]) expect(r["title"]).not.toMatch(/^Ornamental design/);
  },
  status: () => {
    const granted = search({ q: Q, status: "GRANT" });
    for (const b of bib(pns(granted))) expect(b["patentType"]).toBe("Granted Patent");
    const applications = search({ q: Q, status: "APPLICATION" });
    for (const b of bib(pns(applications))) expect(b["patentType"]).toBe("Patent Application");
    expect(granted["total"] + applications["total"]).toBe(search({ q: Q })["total"]);
  },
  patents: () => expect(search({ q: Q, patents: false })["total"]).toBe(0),
  scholar: () => {
    const d = search({ q: Q, patents: false, scholar: true });
    expect(d["total"]).toBeGreaterThan(0);
    for (const r of d["results"] as Row[])
      expect(r).toMatchObject({ scholar: true, title: expect.stringMatching(/drone/) });
  },
  litigation: () => {
    const q = "battery";
    const yes = search({ q, litigation: "YES" });
    const no = search({ q, litigation: "NO" });
    expect(yes["total"] + no["total"]).toBe(search({ q })["total"]);
    for (const pn of pns(yes)) {
      const events = legalStatusAt(pn, DATE)?.["eventStatus"] as Row[];
      expect(events.some((e) => e["eventCode"] === "LITG")).toBe(true);
    }
  },
  clustered: () => {
    const d = search({ q: Q, clustered: true });
    const groups = bib(pns(d)).map((b) => b["ipcMain"]);
    const order = new Map(pns(d).map((pn, i) => [pn, i]));
    const byResult = bib(pns(d)).sort((a, b) => (order.get(a["pn"]) ?? 0) - (order.get(b["pn"]) ?? 0));
    const runs = byResult.map((b) => b["ipcMain"]).filter((g, i, a) => i === 0 || a[i - 1] !== g);
    expect(runs).toHaveLength(new Set(groups).size);
  },
  dups: () => {
    // No two publications of the emulated index share a family, so deduplicating by language changes nothing.
    expect(pns(search({ q: Q, dups: "language" }))).toEqual(pns(search({ q: Q })));
  },
};

const MARKETPLACE: Record<string, () => void> = {
  keyword: () => {
    const d = answerAt("marketplace-search", { keyword: "desk lamp" }, DATE);
    expect(d["keyword"]).toBe("desk lamp");
    for (const p of d["products"] as Row[]) expect(p["keyword"]).toBe("desk lamp");
  },
  page: () => {
    const p1 = answerAt("marketplace-search", { keyword: "desk lamp", page: 1 }, DATE);
    const last = answerAt(
      "marketplace-search",
      { keyword: "desk lamp", page: p1["totalPage"] as number },
      DATE,
    );
    const after = answerAt(
      "marketplace-search",
      { keyword: "desk lamp", page: (p1["totalPage"] as number) + 1 },
      DATE,
    );
    expect((last["products"] as Row[]).length).toBeGreaterThan(0);
    expect(after["products"]).toEqual([]);
  },
};

const IDENTIFIERS: Record<string, () => void> = {
  patentNumber: () => {
    const d = answerAt("patent-family-data", { patentNumber: "US11234567B2,WO2021123456A1" }, DATE);
    for (const r of d["data"] as Row[]) expect(["US11234567B2", "WO2021123456A1"]).toContain(r["pn"]);
  },
  patentId: () => {
    const d = answerAt(
      "patent-family-data",
      { patentId: "patent/US11234567B2/en", patentNumber: "EP3456789B1" },
      DATE,
    );
    expect((d["data"] as Row[]).map((r) => r["pn"])).toEqual(["US11234567B2"]);
  },
  replaceByRelated: () => {
    const many = Array.from({ length: 60 }, (_, i) => `US${11_000_000 + i * 7919}B2`).join(",");
    const off = answerAt("patent-claims", { patentNumber: many, replaceByRelated: "0" }, DATE)[
      "data"
    ] as Row[];
    const on = answerAt("patent-claims", { patentNumber: many, replaceByRelated: "1" }, DATE)[
      "data"
    ] as Row[];
    const missing = off.filter((r) => r["claims"] === null).map((r) => r["pn"]);
    expect(missing.length).toBeGreaterThan(0);
    for (const r of on.filter((x) => missing.includes(x["pn"])))
      expect(r["pnRelated"]).toEqual(expect.any(String));
  },
  lang: () => {
    const d = answerAt(
      "patent-title-abstract-translation",
      { patentNumber: "US11234567B2", lang: "jp" },
      DATE,
    );
    expect((d["data"] as Row[])[0]?.["title"]).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  },
  limit: () => {
    const d = answerAt("patent-fulltext-images", { patentNumber: "US11234567B2", limit: "2" }, DATE);
    expect((d["data"] as Row[]).length).toBeLessThanOrEqual(2);
  },
  offset: () => {
    const all = answerAt("patent-fulltext-images", { patentNumber: "US11234567B2" }, DATE)["data"] as Row[];
    const rest = answerAt("patent-fulltext-images", { patentNumber: "US11234567B2", offset: "1" }, DATE)[
      "data"
    ] as Row[];
    expect(rest).toEqual(all.slice(1));
  },
};

const IMG = "https://img.example/lamp.jpg";
const deterministicInput = (slug: string, body: Row, member: string, value: unknown) => () => {
  expect(answerAt(slug, { ...body, [member]: value }, DATE)).toEqual(
    answerAt(slug, { ...body, [member]: value }, DATE),
  );
};
const TRO = "vendora-product-tro-detection";
const COPY = "vendorb-copyright-detection";
const DESIGN = "vendorb-detection-patent-design";
const designs = (extra: Row) =>
  answerAt(DESIGN, { imageUrl: IMG, queryMode: "physical", topNumber: 50, ...extra }, DATE)["data"] as Row[];

const IP_RISK: Record<string, Record<string, () => void>> = {
  [TRO]: {
    mainProductImage: deterministicInput(TRO, {}, "mainProductImage", IMG),
    referenceImages: deterministicInput(TRO, { mainProductImage: IMG }, "referenceImages", [IMG]),
    otherProductImages: deterministicInput(TRO, { mainProductImage: IMG }, "otherProductImages", [IMG]),
    ipImages: deterministicInput(TRO, { mainProductImage: IMG }, "ipImages", [IMG]),
    referenceText: deterministicInput(TRO, { mainProductImage: IMG }, "referenceText", "lamp"),
    description: deterministicInput(TRO, { mainProductImage: IMG }, "description", "Desk lamp"),
    ipKeywords: deterministicInput(TRO, { mainProductImage: IMG }, "ipKeywords", ["lamp"]),
    language: () => {
      for (let i = 0; i < 5; i++) {
        const en = answerAt(TRO, { mainProductImage: `${IMG}?${i}`, language: "en" }, DATE);
        for (const r of en["results"] as Row[]) expect(r["report"]).not.toMatch(/[\u4e00-\u9fff]/);
      }
    },
  },
  [COPY]: {
    imageUrl: deterministicInput(COPY, { topNumber: 10, enableRadar: true }, "imageUrl", IMG),
    topNumber: () =>
      expect(
        (answerAt(COPY, { imageUrl: IMG, topNumber: 10, enableRadar: true }, DATE)["data"] as Row[]).length,
      ).toBeLessThanOrEqual(10),
    enableRadar: () => {
      for (const r of answerAt(COPY, { imageUrl: IMG, topNumber: 50, enableRadar: false }, DATE)[
        "data"
      ] as Row[])
        expect(r["subRadarResult"]).toBeNull();
    },
  },
  [DESIGN]: {
    imageUrl: deterministicInput(DESIGN, { queryMode: "physical", topNumber: 5 }, "imageUrl", IMG),
    queryMode: () => {
      for (const r of designs({ queryMode: "line" })) expect(r["isSketchText"]).toBe("1");
    },
    topNumber: () => expect(designs({ topNumber: 3 }).length).toBeLessThanOrEqual(3),
    regions: () => {
      for (const r of designs({ regions: "CN,JP" }))
        expect(["CN", "JP"]).toContain(r["registrationOfficeCode"]);
    },
    productTitle: deterministicInput(
      DESIGN,
      { imageUrl: IMG, queryMode: "physical", topNumber: 5 },
      "productTitle",
      "Lamp",
    ),
    productDescription: deterministicInput(
      DESIGN,
      { imageUrl: IMG, queryMode: "physical", topNumber: 5 },
      "productDescription",
      "A lamp",
    ),
    patentStatus: () => {
      for (const r of designs({ patentStatus: "1" })) expect(r["patentValidity"]).toBe("valid");
      for (const r of designs({ patentStatus: "0" })) expect(r["patentValidity"]).toBe("invalid");
    },
    enableRadar: () => {
      for (const r of designs({ enableRadar: true })) expect(r["radarResult"]).toEqual(expect.any(Object));
      for (const r of designs({ enableRadar: false })) expect(r["radarResult"]).toBeNull();
    },
    topLoc: () => {
      for (const r of designs({ topLoc: "06,09" })) expect(r["patentLoc"]).toMatch(/^0[69]-/);
    },
    sourceLanguage: deterministicInput(
      DESIGN,
      { imageUrl: IMG, queryMode: "physical", topNumber: 5 },
      "sourceLanguage",
      "zh",
    ),
  },
  "vendorb-gun-parts-search": {
    imageUrl: deterministicInput("vendorb-gun-parts-search", {}, "imageUrl", IMG),
  },
};

const STATELESS: Record<string, Record<string, () => void | Promise<void>>> = {
  "websearch-patent-search": PATENT_SEARCH,
  "marketplace-search": MARKETPLACE,
  "patent-identifiers": IDENTIFIERS,
  ...IP_RISK,
};

describe("every filter the contract documents", () => {
  it("has a check for each documented member of each operation the emulator answers", () => {
    const checked: Record<string, Record<string, unknown>> = {
      ...STATELESS,
      "advertising-reports": Object.fromEntries(REPORT_MEMBERS.map((m) => [m, 1])),
    };
    for (const [op, members] of Object.entries(DOCUMENTED))
      expect(Object.keys(checked[op] ?? {}).sort(), op).toEqual([...members].sort());
  });

  for (const [op, checks] of Object.entries(STATELESS))
    for (const [member, check] of Object.entries(checks)) it(`${op}: ${member}`, check);

  const emus = emulators();
  it("advertising reports: rows within startDate..endDate, by timeUnit and detailLevel, per connection and report", async () => {
    const emu = await emus.start({ reportPendingPolls: 0, reportRowsPerPart: 30 });
    afterTest(() => emus.stopAll());
    const range = { startDate: "2026-10-01", endDate: "2026-10-07" };
    const body = {
      connectionId: 4,
      advertiserAccountId: "A1",
      ...range,
      timeUnit: "DAILY",
      detailLevel: "AD_GROUP",
    };
    const created = await post(emu, "marketplace-ads-sp-audience-report", body);
    const { reportId } = created.json.data;
    const status = await post(emu, "marketplace-ads-sp-insights-report-status", {
      connectionId: 4,
      reportId,
    });
    const documentToken = status.json.data.completedReportParts[0].documentToken;
    const csv = await post(emu, "marketplace-ads-sp-insights-report-download", {
      connectionId: 4,
      documentToken,
    });
    const [header, ...rows] = parseCsv(csv.json.data.content);
    expect(header?.[0]).toBe("Date");
    expect(header?.some((h) => /ad group/i.test(h))).toBe(true);
    for (const r of rows) expect(r[0]! >= range.startDate && r[0]! <= range.endDate).toBe(true);
    const summary = await post(emu, "marketplace-ads-sp-audience-report", {
      ...body,
      timeUnit: "SUMMARY",
      detailLevel: "ACCOUNT",
    });
    const s = await post(emu, "marketplace-ads-sp-insights-report-status", {
      connectionId: 4,
      reportId: summary.json.data.reportId,
    });
    const t = s.json.data.completedReportParts[0].documentToken;
    const [h2] = parseCsv(
      (await post(emu, "marketplace-ads-sp-insights-report-download", { connectionId: 4, documentToken: t }))
        .json.data.content,
    );
    expect(h2?.slice(0, 2)).toEqual(["Start Date", "End Date"]);
    expect(h2?.some((h) => /ad group/i.test(h))).toBe(false);
    // A report belongs to its connection: another connection's status call does not find it.
    expect(
      (await post(emu, "marketplace-ads-sp-insights-report-status", { connectionId: 5, reportId })).json.data,
    ).toBeNull();
  });
});

const REPORT_MEMBERS = DOCUMENTED["advertising-reports"] ?? [];
