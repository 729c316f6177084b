import { canonicalJson } from "../../core/hash.js";
import { hashHex, hashSeed, Rng } from "../random.js";
import { isoDay, randomDay, ymdInt } from "./dates.js";
import { knownPublicationNumber } from "./patent-numbers.js";
import { ORGANISATIONS, PERSON_NAMES } from "./vocabulary.js";

type Body = Record<string, unknown>;

const seeded = (slug: string, body: Body) => new Rng(hashSeed(slug, canonicalJson(body)));
const ASSETS = "https://ipassets.emulator.example";
const RISK = [
  { level: "high", min: 0.8, max: 0.99 },
  { level: "medium", min: 0.5, max: 0.79 },
  { level: "low", min: 0.1, max: 0.49 },
] as const;
const TRADEMARKS = [
  "SUNNY DAYS",
  "Kätzchen",
  "MOONLIGHT, INC.",
  '"Cozy" Home',
  "龙之梦",
  "Pokey Dots",
] as const;

function riskRecord(rng: Rng, tier: (typeof RISK)[number], zh: boolean): Record<string, unknown> {
  const owner = rng.pick(ORGANISATIONS);
  const ipType = rng.pick(["trademark", "copyright", "design patent"]);
  const cases = rng.int(1, 40);
  return {
    riskLevel: tier.level,
    ipType,
    text: ipType === "trademark" ? rng.pick(TRADEMARKS) : null,
    ipOwner: owner.name,
    regNo: ipType === "design patent" ? `USD${rng.digits(6)}` : rng.digits(7),
    riskDescription: zh
      ? `与${ipType === "trademark" ? "商标" : "版权"}“${owner.name}”相似`
      : `Similar to a ${ipType} of ${owner.name}`,
    report: zh ? "建议下架或修改主图。" : 'Consider removing the listing or changing the "main image".',
    riskScore: rng.decimal(tier.min, tier.max, 2),
    ipAssetUrls: [`${ASSETS}/${rng.upperAlnum(10)}.jpg`],
    plaintiffId: rng.int(1000, 99999),
    plaintiffName: owner.name,
    numberOfCases: cases,
    lastCaseDocket: `1:${rng.int(20, 25)}-cv-${rng.digits(5)}`,
    lastCaseDateFiled: isoDay(randomDay(rng, 2020, 2025)),
  };
}

/** `vendora-product-tro-detection`: a completed check with risk records and the non-risky ones. */
export function troDetection(body: Body): Record<string, unknown> {
  const rng = seeded("vendora-product-tro-detection", body);
  const zh = body["language"] !== "en";
  const results = Array.from({ length: rng.int(0, 5) }, () => ({
    ...riskRecord(rng, rng.pick(RISK), zh),
    columns: ["riskLevel", "ipType", "ipOwner", "regNo", "riskScore"],
  }));
  const nonResults = Array.from({ length: rng.int(0, 3) }, () => riskRecord(rng, RISK[2], zh));
  return {
    checkId: hashHex(24, "tro", canonicalJson(body)),
    status: "completed",
    type: "tro",
    total: results.length,
    results,
    nonResults,
  };
}

/** `vendorb-copyright-detection`: up to topNumber matches, most similar first; similarity is text. */
export function copyrightDetection(body: Body): Record<string, unknown> {
  const rng = seeded("vendorb-copyright-detection", body);
  const count = Math.min(Number(body["topNumber"] ?? 100), rng.int(0, 25));
  let similarity = rng.decimal(0.85, 0.99, 2);
  const data = Array.from({ length: count }, () => {
    similarity = Math.max(0.1, similarity - rng.decimal(0, 0.05, 2));
    const id = rng.upperAlnum(12);
    const tro = rng.chance(0.2);
    return {
      path: `${ASSETS}/copyright/${id}.jpg`,
      pathThumb: `${ASSETS}/copyright/${id}_thumb.jpg`,
      similarity: similarity.toFixed(2),
      subRadarResult: body["enableRadar"] === false ? null : rng.int(0, 1),
      copyrightUrl: `https://copyright.emulator.example/record/VA${rng.digits(10)}`,
      copyrightCode: `VA ${rng.digits(1)}-${rng.digits(3)}-${rng.digits(3)}`,
      rightsOwner: rng.pick([...ORGANISATIONS, ...PERSON_NAMES]).name,
      link: `https://www.marketplace.example/dp/B0${rng.upperAlnum(8)}`,
      troCase: tro,
      troHolder: tro && rng.chance(0.5),
    };
  });
  return { detectId: hashHex(24, "copyright", canonicalJson(body)), total: data.length, data };
}

/** `vendorb-detection-patent-design`: up to topNumber design patents in the asked regions. */
export function designPatentDetection(body: Body): Record<string, unknown> {
  const rng = seeded("vendorb-detection-patent-design", body);
  const filter = designFilter(body);
  const count = Math.min(Number(body["topNumber"]), rng.int(1, 30));
  const data = Array.from({ length: count }, (_, i) => designRecord(rng, body, filter, i));
  return { total: data.length, data };
}

/** Which designs a detection asks for: offices, validity and Locarno classes. */
interface DesignFilter {
  regions: string[];
  statuses: string[];
  locs: number[];
}

function designFilter(body: Body): DesignFilter {
  const regions =
    typeof body["regions"] === "string"
      ? body["regions"].split(",").map((r) => r.trim())
      : ["US", "EU", "CN"];
  // patentStatus "1" asks for valid designs only, "0" for lapsed ones; topLoc for those Locarno classes.
  const statuses = String(body["patentStatus"] ?? "1,0")
    .split(",")
    .map((v) => v.trim());
  const locs =
    typeof body["topLoc"] === "string" && body["topLoc"].trim() !== ""
      ? body["topLoc"]
          .split(",")
          .map((c) => Number(c.trim()))
          .filter((n) => n >= 1 && n <= 32)
      : [];
  return { regions, statuses, locs };
}

/** The `i`th design found, less similar than the one before. */
function designRecord(rng: Rng, body: Body, f: DesignFilter, i: number): Record<string, unknown> {
  const office = rng.pick(f.regions);
  const pn =
    office === "US"
      ? `USD${rng.int(850, 999)}${rng.digits(3)}S`
      : knownPublicationNumber(rng, [office === "EU" ? "EP" : office]);
  const applicationDay = randomDay(rng, 2012, 2023);
  const drawn = rng.chance(0.8);
  const granted = f.statuses.includes("1") && f.statuses.includes("0") ? drawn : f.statuses.includes("1");
  const applicant = rng.pick(ORGANISATIONS);
  const tro = rng.chance(0.15);
  return {
    applicationNumber: `${office}${rng.digits(9)}`,
    publicationNumber: pn,
    patentProd: rng.pick(["Lamp", "Bottle", "Phone case", "Chair", "Toy figure"]),
    patentProdCn: rng.pick(["灯", "瓶子", "手机壳", "椅子", "玩偶"]),
    similarity: (0.95 - i * 0.02 - rng.decimal(0, 0.02, 3)).toFixed(3),
    patentImageUrl: `${ASSETS}/design/${pn}/1.png`,
    images: Array.from({ length: rng.int(1, 6) }, (_, k) => `${ASSETS}/design/${pn}/${k + 1}.png`),
    abstracts: rng.chance(0.3)
      ? null
      : `The ornamental design for a product, as shown and described ("Fig. 1–7").`,
    specification: rng.chance(0.5) ? null : "Fig. 1 is a front view; Fig. 2 is a rear view, 背面图.",
    inventors: rng.sample(PERSON_NAMES, rng.int(1, 3)).map((p) => p.name),
    applicants: [applicant.name],
    applicantAddresses: [`1-2-3 Chūō, ${applicant.country}`],
    troCase: tro,
    troHolder: tro && rng.chance(0.5),
    radarResult:
      body["enableRadar"] === true
        ? { same: rng.chance(0.3), exp: "Outline and proportions are similar." }
        : null,
    patentLoc: `${String(f.locs.length > 0 ? rng.pick(f.locs) : rng.int(1, 32)).padStart(2, "0")}-${String(rng.int(1, 9)).padStart(2, "0")}`,
    locOneInfo: "Household goods, not elsewhere specified",
    locTwoInfo: null,
    patentValidity: granted ? "valid" : "invalid",
    applicationDate: ymdInt(applicationDay),
    publicationDate: ymdInt(applicationDay + rng.int(100, 500)),
    grantDate: granted ? ymdInt(applicationDay + rng.int(300, 700)) : null,
    estimatedDueDate: ymdInt(applicationDay + 15 * 365),
    registrationOfficeCode: office,
    patentFamily: [pn],
    globalPatentId: hashHex(16, "design", pn),
    globalImageId: hashHex(16, "design-image", pn),
    isSketchText: body["queryMode"] === "line" ? "1" : "0",
  };
}

/** `vendorb-gun-parts-search`: a few look-alike policy-violating items with a cosine score. */
export function gunPartsSearch(body: Body): Record<string, unknown> {
  const rng = seeded("vendorb-gun-parts-search", body);
  const data = Array.from({ length: rng.int(0, 8) }, (_, i) => ({
    pdImgOssUrl: `${ASSETS}/policy/${rng.upperAlnum(10)}.jpg`,
    pdTitle: rng.pick([
      "Tactical grip, M-LOK",
      '"Bump" stock adapter',
      "Trigger kit – drop-in",
      "Suppressor cup, 1/2x28",
    ]),
    pdTitleCHNCensored: rng.pick(["战术握把", "枪托适配器", "扳机套件"]),
    cosine: Math.round((0.93 - i * 0.04 - rng.next() * 0.03) * 1000) / 1000,
  }));
  return { detectId: hashHex(24, "gun-parts", canonicalJson(body)), total: data.length, data };
}
