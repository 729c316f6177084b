import { ymdInt } from "./dates.js";
import type { PatentProfile } from "./patent-profile.js";
import { ABSTRACT_FORMS, AGENCIES, PERSON_NAMES, TECH_TOPICS_BY_LANG, TITLE_FORMS } from "./vocabulary.js";

/** The members of a patent-detailed-bibliography record (beside patentId and pn). */
export function detailedBibliography(p: PatentProfile): Record<string, unknown> {
  const topicCn = TECH_TOPICS_BY_LANG.cn[p.topicIndex] ?? p.topic;
  const agency = AGENCIES[p.topicIndex % AGENCIES.length] as string;
  const examiner = PERSON_NAMES[(p.topicIndex * 7 + p.claimCount) % PERSON_NAMES.length]?.name ?? null;
  const docNumber = p.pn.replace(/^[A-Z]{2}/, "").replace(/[A-Z]\d?$/, "");
  return {
    inventionTitle: [
      { lang: "en", text: p.title },
      ...(p.country === "CN" ? [{ lang: "zh", text: TITLE_FORMS.cn(topicCn) }] : []),
    ],
    abstracts: [
      { lang: "en", text: p.abstract },
      ...(p.country === "CN" ? [{ lang: "zh", text: ABSTRACT_FORMS.cn(topicCn) }] : []),
    ],
    patentType: p.granted ? "grant" : "application",
    applicants: p.applicants.map((a, i) => ({ ...a, sequence: i + 1 })),
    assignees: p.assignees.map((a, i) => ({ ...a, sequence: i + 1 })),
    inventors: p.inventors.map((a, i) => ({ ...a, sequence: i + 1 })),
    agents: [{ name: agency, country: p.country }],
    agency: { name: agency, country: p.country },
    examiners: examiner ? [{ name: examiner, type: "primary" }] : [],
    priorityClaims: p.priorityClaims.map((c, i) => ({ ...c, sequence: i + 1, kind: "national" })),
    applicationReference: { country: p.country, docNumber: p.applicationNo, date: ymdInt(p.filingDay) },
    publicationReference: { country: p.country, docNumber, kind: p.kind, date: ymdInt(p.publicationDay) },
    datesOfPublicAvailability: {
      unexaminedPrintedWithoutGrant: p.granted ? null : ymdInt(p.publicationDay),
      printedWithGrant: p.grantDay === null ? null : ymdInt(p.grantDay),
    },
    classificationIpcr: [p.ipcMain, ...p.ipcFurther].map((symbol, i) => ({
      symbol,
      main: i === 0,
      version: "2006-01-01",
    })),
    classificationCpc: [p.cpcMain, ...p.cpcFurther].map((symbol, i) => ({ symbol, main: i === 0 })),
    classificationUpc:
      p.country === "US" ? [{ symbol: `${320 + p.topicIndex}/${100 + p.claimCount}` }] : null,
    classificationLoc: null,
    classificationFi: p.country === "JP" ? [{ symbol: `${p.ipcMain}@A` }] : null,
    classificationFterm:
      p.country === "JP" ? [{ symbol: `5H${String(p.topicIndex).padStart(3, "0")}/AA01` }] : null,
    classificationGbc: p.country === "CN" ? [{ symbol: "G06F" }] : null,
    referenceCitedPatents: p.citedPatents.map((pn, i) => ({
      pn,
      citedBy: i % 2 === 0 ? "examiner" : "applicant",
    })),
    referenceCitedOthers: p.citedNonPatents.map((text) => ({ text, citedBy: "examiner" })),
    relatedDocuments: p.family.simple
      .filter((pn) => pn !== p.pn)
      .map((pn) => ({ pn, relation: "family member" })),
    pctOrRegionalFilingData: p.pct ? { docNumber: p.pct.applicationNo, date: ymdInt(p.pct.filingDay) } : null,
    pctOrRegionalPublishingData:
      p.country === "WO" ? { docNumber, kind: p.kind, date: ymdInt(p.publicationDay) } : null,
    exdt: ymdInt(p.expiryDay),
  };
}
