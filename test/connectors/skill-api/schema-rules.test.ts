import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SkillClient } from "../../../connectors/skill-api/index.js";
import { ValidationError } from "../../../core/errors.js";
import { catalog, DESIGN_REGIONS, envelopeSchema, requestedIdentifiers } from "../../../schema/index.js";

/**
 * Every request rule of contract sections 4 and 8, one passing and one failing value each, run
 * through `client.prepare` (the path a real call takes before anything is sent).
 */
type Body = Record<string, unknown>;
type Path = (string | number)[];
interface Rule {
  rule: string;
  ok: Body;
  bad: Body;
  /** The member the failure must be reported at. */
  at?: Path;
}

const client = new SkillClient({ baseUrl: "http://127.0.0.1:9", apiKey: "sk-schema-rules-0000" });
afterAll(() => client.close());

const URL_PREFIX = "https://i.example.com/";
const urlOf = (n: number) => URL_PREFIX + "a".repeat(n - URL_PREFIX.length);
const DATA_PREFIX = "data:image/png;base64,";
const dataUriOf = (n: number) => DATA_PREFIX + "A".repeat(n - DATA_PREFIX.length);
const IMG = urlOf(40);
const text = (n: number) => "t".repeat(n);
const ids = (n: number) => Array.from({ length: n }, (_, i) => `US${1000000 + i}B2`).join(",");
const without = (body: Body, key: string): Body =>
  Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

const required = (base: Body, key: string): Rule => ({
  rule: `${key} is required`,
  ok: base,
  bad: without(base, key),
  at: [key],
});
const value = (base: Body, key: string, ok: unknown, bad: unknown, rule: string): Rule => ({
  rule: `${key}: ${rule}`,
  ok: { ...base, [key]: ok },
  bad: { ...base, [key]: bad },
  at: [key],
});
const strict = (base: Body): Rule => ({
  rule: "unknown members are rejected",
  ok: base,
  bad: { ...base, vendorExtra: 1 },
});
const loose = (base: Body): Rule => ({
  rule: "unknown members are allowed (a wrong known member still fails)",
  ok: { ...base, vendorExtra: { any: 1 } },
  bad: { ...base, vendorExtra: { any: 1 }, [Object.keys(base)[0]!]: 12345 },
});

// --- 4.2 advertising -------------------------------------------------------------------------
const connection = (base: Body): Rule[] => [
  required(base, "connectionId"),
  value(base, "connectionId", 1, 0, "integer >= 1"),
  value(base, "connectionId", 7, 1.5, "an integer"),
  value(base, "connectionId", 7, "7", "a number, not text"),
  strict(base),
];
const reportCreate = (base: Body): Rule[] => [
  ...connection(base),
  required(base, "startDate"),
  required(base, "endDate"),
  value(base, "startDate", "2024-02-29", "2025-02-30", "a real calendar date"),
  value(base, "endDate", "2026-12-31", "2026/12/31", "format yyyy-mm-dd"),
  value(base, "advertiserAccountId", "A1", "", "minLength 1 when given"),
  value(base, "timeUnit", "SUMMARY", "WEEKLY", "DAILY or SUMMARY"),
];
const createBase = { connectionId: 3, startDate: "2026-01-01", endDate: "2026-01-31" };

// --- 4.4 patent identifiers ------------------------------------------------------------------
const identifierRules = (): Rule[] => {
  const base = { patentNumber: "US1" };
  const perMember = (m: string): Rule[] => [
    value({}, m, ids(100), ids(101), "at most 100 comma-separated values"),
    value({}, m, "x".repeat(60_000), "x".repeat(60_001), "at most 60000 characters"),
    value({}, m, "US1", "", "at least one value"),
    value({}, m, "US1, US2", "US1,,US2", "no empty value between commas"),
    value({}, m, "US1,US2", "US1,", "no trailing comma"),
    value({}, m, "US1", 10001, "a string"),
  ];
  return [
    {
      rule: "patentId or patentNumber (at least one)",
      ok: { patentId: "p1" },
      bad: { lang: "en" },
      at: ["patentId"],
    },
    { rule: "patentNumber alone is enough", ok: { patentNumber: "US1" }, bad: {}, at: ["patentId"] },
    {
      rule: "both may be given",
      ok: { patentId: "p1", patentNumber: "US1" },
      bad: { patentId: "", patentNumber: "US1" },
    },
    ...perMember("patentId"),
    ...perMember("patentNumber"),
    loose(base),
  ];
};
const replaceText = (base: Body) => [
  value(base, "replaceByRelated", "1", 1, 'typed string "0"/"1"'),
  value(base, "replaceByRelated", "0", "2", 'only "0" or "1"'),
];
const replaceInt = (base: Body) => [
  value(base, "replaceByRelated", 1, "1", "typed integer 0/1"),
  value(base, "replaceByRelated", 0, 2, "only 0 or 1"),
];
const lang = (base: Body) => [
  value(base, "lang", "cn", "de", "en, cn or jp"),
  value(base, "lang", "jp", "EN", "lower case"),
];
const idBase = { patentNumber: "US1" };

// --- 4.5 IP risk ------------------------------------------------------------------------------
const imageUrlRules = (base: Body): Rule[] => [
  required(base, "imageUrl"),
  value(base, "imageUrl", urlOf(1000), urlOf(1001), "at most 1000 characters"),
  value(base, "imageUrl", "http://x.example/a.png", "x.example/a.png", "an http(s) URL"),
];
const troBase = { mainProductImage: IMG };
const images = (n: number) => Array.from({ length: n }, () => IMG);
const copyrightBase = { imageUrl: IMG, topNumber: 100, enableRadar: true };
const designBase = { imageUrl: IMG, queryMode: "physical", topNumber: 10 };
const searchBase = { q: "drone" };

const rules: Record<string, Rule[]> = {
  "marketplace-ads-sp-insights-report-download": [
    ...connection({ connectionId: 1, documentToken: "doc" }),
    required({ connectionId: 1, documentToken: "doc" }, "documentToken"),
    value({ connectionId: 1 }, "documentToken", "d", "", "minLength 1"),
  ],
  "marketplace-ads-sp-insights-report-status": [
    ...connection({ connectionId: 1, reportId: "r1" }),
    required({ connectionId: 1, reportId: "r1" }, "reportId"),
    value({ connectionId: 1 }, "reportId", "r", "", "minLength 1"),
  ],
  "marketplace-ads-sp-search-impression-share-report": [
    ...reportCreate(createBase),
    { rule: "no detailLevel here (strict)", ok: createBase, bad: { ...createBase, detailLevel: "ACCOUNT" } },
  ],
  "marketplace-ads-sp-audience-report": [
    ...reportCreate(createBase),
    value(createBase, "detailLevel", "AD_GROUP", "KEYWORD", "ACCOUNT, CAMPAIGN or AD_GROUP"),
    value(createBase, "detailLevel", "CAMPAIGN", "account", "exact enum values"),
  ],
  // 4.3 leaves required-ness and bounds unshown; schema/ requires a keyword and a page >= 1.
  "marketplace-search": [
    required({ keyword: "desk lamp" }, "keyword"),
    value({ keyword: "lamp" }, "page", 2, 0, "an integer >= 1"),
    value({ keyword: "lamp" }, "keyword", "lamp", 7, "a string"),
    loose({ keyword: "lamp" }),
  ],
  "websearch-patent-search": [
    required(searchBase, "q"),
    value({}, "q", "x", "", "length >= 1"),
    value({}, "q", text(1000), text(1001), "length <= 1000"),
    value(searchBase, "num", 10, 9, "num >= 10"),
    value(searchBase, "num", 100, 101, "num <= 100"),
    value(searchBase, "num", 50, 50.5, "num an integer"),
    value(searchBase, "page", 1, 0, "page >= 1"),
    ...["country", "language", "inventor", "assignee"].map((k) => value(searchBase, k, "US", 1, "a string")),
    ...["before", "after"].flatMap((k) => [
      value(searchBase, k, "priority:20200101", "grant:20200101", "kind priority, filing or publication"),
      value(searchBase, k, "filing:20191231", "filing:2019-12-31", "<kind>:<8 digits>"),
      value(searchBase, k, "publication:20210615", "publication:2021061", "exactly 8 digits"),
    ]),
    value(searchBase, "sort", "old", "newest", "new or old"),
    value(searchBase, "type", "DESIGN", "UTILITY", "PATENT or DESIGN"),
    value(searchBase, "status", "APPLICATION", "PENDING", "GRANT or APPLICATION"),
    value(searchBase, "patents", false, "false", "a boolean"),
    value(searchBase, "scholar", true, 1, "a boolean"),
    value(searchBase, "litigation", "YES", "MAYBE", "YES or NO"),
    value(searchBase, "clustered", true, false, "only true"),
    value(searchBase, "dups", "language", "country", 'only "language"'),
    strict(searchBase),
  ],
  "patent-abstract-image-data": identifierRules(),
  "patent-cited-by": identifierRules(),
  "patent-claims": [...identifierRules(), ...replaceText(idBase)],
  "patent-claims-translation": [...identifierRules(), ...lang(idBase), ...replaceInt(idBase)],
  "patent-core-bibliography": identifierRules(),
  "patent-description-data": [...identifierRules(), ...replaceText(idBase)],
  "patent-description-data-translation": [...identifierRules(), ...lang(idBase), ...replaceInt(idBase)],
  "patent-detailed-bibliography": identifierRules(),
  "patent-fulltext-images": [
    ...identifierRules(),
    value(idBase, "limit", "100", "101", "at most 100"),
    value(idBase, "limit", "1", 50, "typed string"),
    value(idBase, "offset", "20", "x", "a whole number written as a string"),
  ],
  "patent-family-data": identifierRules(),
  "patent-legal-status-data": identifierRules(),
  "patent-references": identifierRules(),
  "patent-title-abstract-translation": [...identifierRules(), ...lang(idBase), ...replaceInt(idBase)],
  "vendora-product-tro-detection": [
    required(troBase, "mainProductImage"),
    value(
      {},
      "mainProductImage",
      dataUriOf(200),
      "ftp://x.example/a.png",
      "an http(s) URL or a data:image URI",
    ),
    value({}, "mainProductImage", urlOf(1000), urlOf(1001), "a URL of at most 1000 characters"),
    value(
      {},
      "mainProductImage",
      dataUriOf(1000),
      dataUriOf(1001),
      "a data:image URI of at most 1000 characters",
    ),
    value({}, "mainProductImage", IMG, "data:text/plain;base64,AAAA", "a data URI must be an image"),
    value(troBase, "referenceImages", images(3), images(4), "up to 3 images"),
    value(troBase, "otherProductImages", images(5), images(6), "up to 5 images"),
    value(troBase, "ipImages", images(3), images(4), "up to 3 images"),
    {
      rule: "each image a URL or data URI",
      ok: { ...troBase, ipImages: [dataUriOf(60)] },
      bad: { ...troBase, ipImages: ["nope"] },
      at: ["ipImages", 0],
    },
    value(troBase, "referenceText", text(1000), text(1001), "at most 1000 characters"),
    value(troBase, "description", text(1000), text(1001), "at most 1000 characters"),
    value(troBase, "ipKeywords", Array(20).fill("kw"), Array(21).fill("kw"), "up to 20 keywords"),
    value(troBase, "language", "en", "fr", "zh or en"),
    loose(troBase),
  ],
  // 4.5 lists all three members as required (and also gives defaults, see the note in the report).
  "vendorb-copyright-detection": [
    ...imageUrlRules(copyrightBase),
    required(copyrightBase, "topNumber"),
    required(copyrightBase, "enableRadar"),
    value(copyrightBase, "topNumber", 10, 9, "min 10"),
    value(copyrightBase, "topNumber", 200, 201, "max 200"),
    value(copyrightBase, "topNumber", 150, 10.5, "an integer"),
    value(copyrightBase, "enableRadar", false, "yes", "a boolean"),
    loose(copyrightBase),
  ],
  "vendorb-detection-patent-design": [
    ...imageUrlRules(designBase),
    required(designBase, "queryMode"),
    required(designBase, "topNumber"),
    value(designBase, "queryMode", "hybrid", "sketch", "physical, line or hybrid"),
    value(designBase, "queryMode", "line", "LINE", "exact values"),
    value(designBase, "topNumber", 100, 101, "max 100"),
    value(designBase, "regions", DESIGN_REGIONS.join(","), "US,XX", "codes from the documented list"),
    value(designBase, "regions", "US, EU", "us", "upper-case codes"),
    // n valid codes take 3n - 1 characters: 333 fit in 1000, 334 do not.
    value(
      designBase,
      "regions",
      Array(333).fill("US").join(","),
      Array(334).fill("US").join(","),
      "at most 1000 characters",
    ),
    value(designBase, "productTitle", text(1000), text(1001), "at most 1000 characters"),
    value(designBase, "productDescription", text(1000), text(1001), "at most 1000 characters"),
    value(designBase, "patentStatus", "1,0", "2", '"1", "0" or "1,0"'),
    value(designBase, "patentStatus", "0", 1, "typed string"),
    value(designBase, "enableRadar", true, "true", "a boolean"),
    value(designBase, "topLoc", "01,09,12", "1,9", "two-digit LOC classes"),
    value(designBase, "topLoc", "05", "01;02", "comma separated"),
    value(designBase, "sourceLanguage", "", text(1001), "empty allowed, at most 1000 characters"),
    loose(designBase),
  ],
  "vendorb-gun-parts-search": [...imageUrlRules({ imageUrl: IMG }), loose({ imageUrl: IMG })],
};

function rejects(slug: string, body: Body): ValidationError {
  try {
    client.prepare(slug, body);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error(`${slug} accepted ${JSON.stringify(body).slice(0, 200)}`);
}

describe("request rules (contract 4 and 8)", () => {
  it("covers all 23 documented operations", () => {
    expect(Object.keys(rules).sort()).toEqual([...catalog.keys()].sort());
    expect(catalog.size).toBe(23);
  });

  const table = Object.entries(rules).flatMap(([slug, list]) => list.map((r) => [slug, r.rule, r] as const));
  it.each(table)("%s — %s", (slug, _rule, r) => {
    expect(() => client.prepare(slug, r.ok)).not.toThrow();
    const err = rejects(slug, r.bad);
    expect(err.source).toBe(`request to ${slug}`);
    expect(err.exitCode).toBe(2);
    expect(err.issues.length).toBeGreaterThan(0);
    for (const issue of err.issues) expect(issue.message.length).toBeGreaterThan(0);
    if (r.at) expect(err.issues.map((i) => i.path)).toContainEqual(r.at);
  });
});

describe("defaults are applied to what is sent", () => {
  it.each([
    ["marketplace-ads-sp-search-impression-share-report", createBase, { timeUnit: "DAILY" }],
    ["marketplace-ads-sp-audience-report", createBase, { timeUnit: "DAILY", detailLevel: "ACCOUNT" }],
    ["websearch-patent-search", searchBase, { num: 10, page: 1, patents: true, scholar: false }],
    ["patent-claims", idBase, { replaceByRelated: "0" }],
    ["patent-description-data", idBase, { replaceByRelated: "0" }],
    ["patent-claims-translation", idBase, { lang: "en", replaceByRelated: 0 }],
    ["patent-description-data-translation", idBase, { lang: "en", replaceByRelated: 0 }],
    ["patent-title-abstract-translation", idBase, { lang: "en", replaceByRelated: 0 }],
    ["patent-fulltext-images", idBase, { limit: "100" }],
    ["vendora-product-tro-detection", troBase, { language: "zh" }],
  ] as const)("%s", (slug, input, defaults) => {
    expect(client.prepare(slug, input).body).toEqual({ ...input, ...defaults });
    // A value given wins over the default.
    const [key] = Object.keys(defaults);
    const given = { ...input, [key!]: (defaults as Body)[key!] };
    expect(client.prepare(slug, given).body).toMatchObject(given);
  });

  it("keeps unknown members of loose requests in what is sent", () => {
    const body = client.prepare("patent-claims", { patentId: "p1", vendorFlag: { a: [1] } }).body;
    expect(body).toEqual({ patentId: "p1", vendorFlag: { a: [1] }, replaceByRelated: "0" });
  });

  it("patentId takes precedence over patentNumber", () => {
    const body = client.prepare("patent-claims", { patentId: "p1,p2", patentNumber: "US9" }).body;
    expect(requestedIdentifiers(body)).toEqual(["p1", "p2"]);
    expect(requestedIdentifiers({ patentNumber: "US9, US8" })).toEqual(["US9", "US8"]);
  });
});

// --- response side ------------------------------------------------------------------------------
const unwrap = (s: z.ZodType): z.ZodType => {
  let t = s;
  while (t instanceof z.ZodOptional || t instanceof z.ZodNullable) t = t.unwrap() as z.ZodType;
  return t;
};
const shapeOf = (s: z.ZodType) => (unwrap(s) as z.ZodObject).shape as Record<string, z.ZodType>;
const minimalData: Record<string, Body> = {
  "marketplace-ads-sp-search-impression-share-report": { reportId: "r1" },
  "marketplace-ads-sp-audience-report": { reportId: "r1" },
  "marketplace-ads-sp-insights-report-status": { reportId: "r1" },
  "websearch-patent-search": { results: [] },
};

describe("response data (contract 2.2, 2.3, 4)", () => {
  const ops = [...catalog.values()];

  it.each(ops.map((o) => [o.slug, o] as const))(
    "%s: every optional member may be null, unknown ones are kept",
    (slug, op) => {
      const minimal = minimalData[slug] ?? {};
      const shape = shapeOf(op.data);
      const nulls = Object.fromEntries(
        Object.keys(shape)
          .filter((k) => !(k in minimal))
          .map((k) => [k, null]),
      );
      expect(Object.keys(nulls)).toEqual(expect.arrayContaining(["total", "costToken", "columns", "title"]));
      const sample = { ...minimal, ...nulls, vendorExtra: { nested: [1, "two"] } };
      const parsed = op.data.safeParse(sample);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(sample);
      // A wrong type in a documented member is still caught.
      expect(op.data.safeParse({ ...minimal, total: "many" }).success).toBe(false);
    },
  );

  const withRecords = ops.filter((o) => o.recordsPath);
  it.each(withRecords.map((o) => [o.slug, o] as const))(
    "%s: records allow nulls and keep unknown members",
    (slug, op) => {
      const path = op.recordsPath!;
      const element = (unwrap(shapeOf(op.data)[path]!) as z.ZodArray<z.ZodType>).element;
      const record = {
        ...Object.fromEntries(Object.keys(shapeOf(element)).map((k) => [k, null])),
        vendorField: 42,
      };
      const sample = { ...(minimalData[slug] ?? {}), [path]: [record] };
      const parsed = op.data.safeParse(sample);
      expect(parsed.success).toBe(true);
      expect((parsed.data as Body)[path]).toEqual([record]);
    },
  );

  it("reportId is required in report create/status responses, not in download", () => {
    for (const slug of Object.keys(minimalData).filter((s) => s.startsWith("marketplace-ads"))) {
      expect(catalog.get(slug)!.data.safeParse({ status: "PENDING" }).success).toBe(false);
    }
    const download = catalog.get("marketplace-ads-sp-insights-report-download")!.data;
    expect(download.safeParse({ contentType: "text/csv", content: "a,b\n1,2\n" }).success).toBe(true);
    const status = catalog.get("marketplace-ads-sp-insights-report-status")!.data;
    const parts = {
      reportId: "r1",
      status: "PENDING",
      completedReportParts: [{ documentToken: "d1", size: 3 }],
      reportParts: null,
    };
    expect(status.safeParse(parts).data).toEqual(parts);
  });

  it("results are required in patent search data", () => {
    expect(catalog.get("websearch-patent-search")!.data.safeParse({ pagination: {} }).success).toBe(false);
  });
});

describe("the envelope (contract 2.1)", () => {
  const ok = {
    code: 0,
    msg: null,
    data: null,
    ts: "1767225600000",
    time: "2026-01-01 08:00:00",
    cost: "-1",
    traceId: null,
  };
  it.each([
    ["code", 0, 0.5],
    ["msg", "success", 1],
    ["data", { a: 1 }, [1]],
    ["ts", "1767225600000", 1767225600000],
    ["time", "2026-01-01 08:00:00", "2026-01-01T08:00:00Z"],
    ["cost", "35", "1.5 credits"],
    ["traceId", "t-1", 5],
  ])("%s: %j ok, %j rejected", (key, good, bad) => {
    expect(envelopeSchema.safeParse({ ...ok, [key]: good }).success).toBe(true);
    expect(envelopeSchema.safeParse({ ...ok, [key]: bad }).success).toBe(false);
    expect(envelopeSchema.safeParse(without(ok, key)).success).toBe(false);
  });
});
