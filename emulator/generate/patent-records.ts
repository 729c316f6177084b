import { type PatentIdentifierSlug, requestedIdentifiers } from "../../schema/patent-identifier.js";
import { DEFAULT_EMULATOR_DAY } from "../clock.js";
import { isoDay, ymdInt } from "./dates.js";
import { detailedBibliography } from "./patent-detailed.js";
import { newCitations } from "./patent-fresh.js";
import { legalRecordAt } from "./patent-legal.js";
import { isKnownPublicationNumber, normalizePublicationNumber } from "./patent-numbers.js";
import { type PatentProfile, patentProfile } from "./patent-profile.js";
import { ABSTRACT_FORMS, CLAIM_FORMS, type Lang, TECH_TOPICS_BY_LANG, TITLE_FORMS } from "./vocabulary.js";

type Body = Record<string, unknown>;
/** One operation's record(s) for a patent at a day (only the legal status and citations change with it). */
type Build = (
  p: PatentProfile,
  body: Body,
  day: number,
) => Record<string, unknown> | Record<string, unknown>[];

const IMAGE_HOST = "https://patentimages.emulator.example";

const ids = (p: PatentProfile) => ({ patentId: p.patentId, pn: p.pn });
const langOf = (body: Body): Lang => (body["lang"] === "cn" || body["lang"] === "jp" ? body["lang"] : "en");
// English texts speak of the patent's own subject; the translations of its technology.
const topicIn = (p: PatentProfile, lang: Lang) =>
  lang === "en" ? (p.phrases[0] ?? p.topic) : (TECH_TOPICS_BY_LANG[lang][p.topicIndex] ?? p.topic);
const citedList = (pns: string[]) =>
  pns.map((pn, i) => ({
    pn,
    title: patentProfile(pn).title,
    publicationDate: isoDay(patentProfile(pn).publicationDay),
    category: i % 3 === 0 ? "X" : i % 3 === 1 ? "Y" : "A",
  }));

/** Whose text a claims/description call returns: the patent, its related family member, or nobody. */
function contentSource(
  p: PatentProfile,
  body: Body,
): { source: PatentProfile | null; pnRelated: string | null } {
  if (!p.contentUnavailable) return { source: p, pnRelated: null };
  const replace = body["replaceByRelated"] === "1" || body["replaceByRelated"] === 1;
  return replace
    ? { source: patentProfile(p.relatedPn), pnRelated: p.relatedPn }
    : { source: null, pnRelated: null };
}

const claimTexts = (p: PatentProfile, lang: Lang) =>
  Array.from({ length: p.claimCount }, (_, i) => CLAIM_FORMS[lang](topicIn(p, lang), i + 1));

const paragraphs = (p: PatentProfile, lang: Lang) =>
  Array.from({ length: p.descriptionParagraphs }, (_, i) =>
    i === 0
      ? ABSTRACT_FORMS[lang](topicIn(p, lang))
      : `[${String(i).padStart(4, "0")}] ${ABSTRACT_FORMS[lang](topicIn(p, lang))}`,
  );

const builders: Record<PatentIdentifierSlug, Build> = {
  "patent-abstract-image-data": (p) => ({
    ...ids(p),
    abstractDrawingPath: p.hasAbstractDrawing ? `${IMAGE_HOST}/${p.pn}/abstract.png` : null,
  }),
  "patent-cited-by": (p, _body, day) => {
    // New publications citing the patent by `day` count in every window: they are at most weeks old.
    const newer = newCitations(p.pn, day);
    const n = newer.length;
    return {
      ...ids(p),
      citedBy3y: p.citedByCounts.y3 + n,
      citedBy5y: p.citedByCounts.y5 + n,
      citedBySimpleFamily: p.citedByCounts.simple + n,
      citedByInpadocFamily: p.citedByCounts.inpadoc + n,
      citedByVendorFamily: p.citedByCounts.vendor + n,
      citedByPatents: [...p.citedBy, ...newer].map((pn) => ({ pn, title: patentProfile(pn).title })),
    };
  },
  "patent-claims": (p, body) => {
    const { source, pnRelated } = contentSource(p, body);
    const claims = source ? claimTexts(source, "en").map((text, i) => ({ num: i + 1, text })) : null;
    return { ...ids(p), pnRelated, claims, claimCount: claims ? claims.length : 0 };
  },
  "patent-claims-translation": (p, body) => {
    const { source, pnRelated } = contentSource(p, body);
    return { ...ids(p), pnRelated, claims: source ? claimTexts(source, langOf(body)).join("\n") : null };
  },
  "patent-core-bibliography": (p) => ({
    ...ids(p),
    title: p.title,
    abstractContent: p.abstract,
    publicationNumber: p.pn,
    country: p.country,
    publicationCountry: p.country,
    publicationDate: ymdInt(p.publicationDay),
    publicationKind: p.kind,
    patentType: p.granted ? "Granted Patent" : "Patent Application",
    kind: p.kind,
    applicationNo: p.applicationNo,
    applicationDate: ymdInt(p.filingDay),
    applicants: p.applicants,
    inventors: p.inventors,
    assignees: p.assignees,
    assigneeAddresses: p.assignees.map((a) => ({
      name: a.name,
      address: `${a.name.length} Rue de l'Innovation, Bâtiment B`,
      country: a.country,
    })),
    ipcMain: p.ipcMain,
    ipcFurther: p.ipcFurther,
    cpcMain: p.cpcMain,
    cpcFurther: p.cpcFurther,
    loc: null,
    gbc: p.country === "CN" ? ["G06F", "H04L"] : null,
    priorityClaims: p.priorityClaims,
    pctApplicationNo: p.pct?.applicationNo ?? null,
    pctFilingDate: p.pct ? ymdInt(p.pct.filingDay) : null,
    pctEntryDate: p.pct?.entryDay == null ? null : ymdInt(p.pct.entryDay),
    citedPatents: citedList(p.citedPatents),
    citedNonPatents: p.citedNonPatents.map((text) => ({ text })),
  }),
  "patent-description-data": (p, body) => {
    const { source, pnRelated } = contentSource(p, body);
    return {
      ...ids(p),
      pnRelated,
      description: source
        ? paragraphs(source, "en").map((text, i) => ({ num: String(i + 1).padStart(4, "0"), text }))
        : null,
    };
  },
  "patent-description-data-translation": (p, body) => {
    const { source, pnRelated } = contentSource(p, body);
    return {
      ...ids(p),
      description: source ? paragraphs(source, langOf(body)).join("\n\n") : null,
      pnRelated,
    };
  },
  "patent-detailed-bibliography": (p) => ({ ...ids(p), ...detailedBibliography(p) }),
  "patent-fulltext-images": (p, body) => {
    const limit = Number(body["limit"] ?? "100");
    const offset = Number(body["offset"] ?? "0");
    const out: Record<string, unknown>[] = [];
    for (let i = offset; i < Math.min(p.imageCount, offset + limit); i++) {
      const type = i % 5 === 4 ? "tif" : i % 2 === 0 ? "png" : "jpg";
      out.push({
        ...ids(p),
        fulltextImagePath: `${IMAGE_HOST}/${p.pn}/fulltext/${String(i + 1).padStart(3, "0")}.${type}`,
        imageType: type,
      });
    }
    return out;
  },
  "patent-family-data": (p) => ({
    ...ids(p),
    simpleFamilyId: p.family.simpleId,
    simpleFamily: p.family.simple,
    inpadocFamilyId: p.family.inpadocId,
    inpadocFamily: p.family.inpadoc,
    vendorFamilyId: p.family.vendorId,
    vendorFamily: p.family.vendor,
  }),
  "patent-legal-status-data": (p, _body, day) => legalRecordAt(p, day),
  "patent-references": (p) => ({
    ...ids(p),
    citedPatents: citedList(p.citedPatents),
    citedOthers: p.citedNonPatents.map((text) => ({ text })),
  }),
  "patent-title-abstract-translation": (p, body) => {
    const lang = langOf(body);
    return {
      ...ids(p),
      title: lang === "en" ? p.title : TITLE_FORMS[lang](topicIn(p, lang)),
      abstractText: lang === "en" ? p.abstract : ABSTRACT_FORMS[lang](topicIn(p, lang)),
      pnRelated: null,
    };
  },
};

/**
 * `data` of a patent-identifier operation at a day (default: the emulator's default date): one
 * record per known identifier asked for (`patentId` wins over `patentNumber`; repeats collapse),
 * several per patent for full-text images. Unknown identifiers, and patents not yet published on
 * that day, are simply absent, so `total` can be less than asked.
 *
 * @example patentIdentifierData("patent-family-data", { patentNumber: "US11234567B2,XX1" }).total // 0 or 1
 */
export function patentIdentifierData(
  slug: PatentIdentifierSlug,
  body: Body,
  day = DEFAULT_EMULATOR_DAY,
): Record<string, unknown> {
  const seen = new Set<string>();
  const profiles: PatentProfile[] = [];
  for (const id of requestedIdentifiers(body)) {
    const pn = normalizePublicationNumber(id);
    if (seen.has(pn)) continue;
    seen.add(pn);
    const p = publishedProfile(pn, day);
    if (p) profiles.push(p);
  }
  const build = builders[slug];
  const records = profiles.flatMap((p) => build(p, body, day));
  const data: Record<string, unknown> = { total: records.length, data: records };
  if (slug === "patent-core-bibliography") data["allRecordsCount"] = profiles.length;
  return data;
}

/** The profile of a number the emulator knows and that is published by `day`; else undefined. */
export function publishedProfile(pn: string, day: number): PatentProfile | undefined {
  if (!isKnownPublicationNumber(pn)) return undefined;
  const p = patentProfile(pn);
  return p.publicationDay <= day ? p : undefined;
}
