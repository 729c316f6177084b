/**
 * One known-good and one known-bad request per documented operation. The bad one breaks a rule
 * JSON Schema can carry (required, bounds, enums, patterns, strictness, anyOf), so both the zod
 * schema and the generated JSON Schema must reject it.
 */
export interface Sample {
  good: Record<string, unknown>;
  bad: Record<string, unknown>;
}

const img = "https://img.example.com/p/1.jpg";
const report = { connectionId: 1, startDate: "2026-01-01", endDate: "2026-01-31" };
const ids = { patentId: "US1234567B2,EP7654321A1" };

export const samples: Record<string, Sample> = {
  "marketplace-ads-sp-search-impression-share-report": {
    good: { ...report, timeUnit: "SUMMARY" },
    bad: { ...report, timeUnit: "WEEKLY" },
  },
  "marketplace-ads-sp-audience-report": {
    good: { ...report, detailLevel: "AD_GROUP" },
    bad: { ...report, detailLevel: "KEYWORD" },
  },
  "marketplace-ads-sp-insights-report-status": {
    good: { connectionId: 3, reportId: "r-1" },
    bad: { connectionId: 3, reportId: "" },
  },
  "marketplace-ads-sp-insights-report-download": {
    good: { connectionId: 3, documentToken: "tok" },
    bad: { connectionId: 0, documentToken: "tok" },
  },
  "marketplace-search": { good: { keyword: "desk lamp", page: 2 }, bad: { page: 2 } },
  "websearch-patent-search": {
    good: { q: "solar panel mount", num: 100, before: "priority:20240101", clustered: true },
    bad: { q: "solar", num: 5 },
  },
  "patent-abstract-image-data": { good: ids, bad: {} },
  "patent-cited-by": { good: { patentNumber: "US1234567" }, bad: { patentId: 42 } },
  "patent-claims": { good: { ...ids, replaceByRelated: "1" }, bad: { ...ids, replaceByRelated: 1 } },
  "patent-claims-translation": {
    good: { ...ids, lang: "jp", replaceByRelated: 1 },
    bad: { ...ids, lang: "de" },
  },
  "patent-core-bibliography": { good: ids, bad: { patentId: "x".repeat(60_001) } },
  "patent-description-data": { good: ids, bad: { ...ids, replaceByRelated: "2" } },
  "patent-description-data-translation": {
    good: { ...ids, lang: "cn" },
    bad: { ...ids, replaceByRelated: "1" },
  },
  "patent-detailed-bibliography": { good: ids, bad: { other: "member" } },
  "patent-fulltext-images": { good: { ...ids, limit: "50", offset: "0" }, bad: { ...ids, limit: "ten" } },
  "patent-family-data": { good: ids, bad: { patentNumber: null } },
  "patent-legal-status-data": { good: { ...ids, note: "unknown members allowed" }, bad: {} },
  "patent-references": { good: ids, bad: { patentId: ["US1"] } },
  "patent-title-abstract-translation": {
    good: { ...ids, lang: "en", replaceByRelated: 0 },
    bad: { ...ids, replaceByRelated: 2 },
  },
  "vendora-product-tro-detection": {
    good: { mainProductImage: img, ipKeywords: ["brand"], language: "en" },
    bad: { mainProductImage: img, referenceImages: [img, img, img, img] },
  },
  "vendorb-copyright-detection": {
    good: { imageUrl: img, topNumber: 10, enableRadar: true },
    bad: { imageUrl: img, topNumber: 201, enableRadar: true },
  },
  "vendorb-detection-patent-design": {
    good: { imageUrl: img, queryMode: "hybrid", topNumber: 100, topLoc: "01,09", patentStatus: "1,0" },
    bad: { imageUrl: img, queryMode: "sketch", topNumber: 10 },
  },
  "vendorb-gun-parts-search": { good: { imageUrl: img }, bad: { imageUrl: "ftp://example.com/x.jpg" } },
};
