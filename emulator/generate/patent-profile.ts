import { hashSeed, Rng } from "../random.js";
import { isoDay } from "./dates.js";
import { type PatentDates, patentDates } from "./patent-dates.js";
import { datedPublicationDay, newReferences, topicOfNew } from "./patent-fresh.js";
import { indexEntry } from "./patent-index.js";
import { isGrant, knownPublicationNumber, patentIdOf } from "./patent-numbers.js";
import { abstractOf, isDesignNumber, type Subject, subjectByHash, titleOf } from "./patent-subjects.js";
import { ORGANISATIONS, PERSON_NAMES, TECH_TOPICS } from "./vocabulary.js";

interface Party {
  name: string;
  country: string;
}

/**
 * Everything the emulator says about one patent that does not change with the date, derived from
 * its publication number alone, so search results and the 13 identifier operations agree about
 * the same patent. What changes with the date (legal status, citations by newer patents) is
 * computed from it at the emulated day (patent-legal.ts, patent-fresh.ts).
 */
export interface PatentProfile {
  pn: string;
  patentId: string;
  country: string;
  kind: string;
  granted: boolean;
  /** A registered design (S kind): its title and claim say so. */
  design: boolean;
  topicIndex: number;
  topic: string;
  /** The phrases of its technology its title and abstract are written from. */
  phrases: readonly string[];
  title: string;
  abstract: string;
  priorityDay: number;
  filingDay: number;
  publicationDay: number;
  grantDay: number | null;
  expiryDay: number;
  applicationNo: string;
  /** The PCT application: a WO publication's own, or the one a national publication entered from. */
  pct: { applicationNo: string; filingDay: number; entryDay: number | null } | null;
  applicants: Party[];
  inventors: Party[];
  assignees: Party[];
  ipcMain: string;
  ipcFurther: string[];
  cpcMain: string;
  cpcFurther: string[];
  priorityClaims: { number: string; date: string; country: string }[];
  citedPatents: string[];
  citedNonPatents: string[];
  /** Citing patents of the fixed index; new publications citing it are added at the date. */
  citedBy: string[];
  citedByCounts: { y3: number; y5: number; simple: number; inpadoc: number; vendor: number };
  family: {
    simpleId: number;
    simple: string[];
    inpadocId: number;
    inpadoc: string[];
    vendorId: number;
    vendor: string[];
  };
  claimCount: number;
  /** Claims and description are "unavailable"; replaceByRelated substitutes `relatedPn`. */
  contentUnavailable: boolean;
  relatedPn: string;
  imageCount: number;
  hasAbstractDrawing: boolean;
  descriptionParagraphs: number;
}

// IPC/CPC main groups, aligned with TECH_TOPICS.
// biome-ignore format: one line per six codes reads better than one per line
const IPC = [
  "H02J 50/10", "H01M 10/613", "H04N 25/75", "A61M 5/20", "H01L 31/048", "B25J 15/08",
  "H03M 7/30", "F04D 29/38", "A46B 9/04", "G06F 1/16", "B01D 71/68", "B62M 25/04",
  "B64U 10/13", "F25B 30/02", "B60T 8/17", "G06N 3/08",
];

const NON_PATENT_CITATIONS = [
  'Smith, J., "Wireless power, revisited", IEEE Trans. 2019, pp. 1–12',
  "Müller et al., Journal für Technik, Bd. 4, S. 233",
  "技术报告 2020-17，北京",
  "Search report, EPO, 2021",
];

const cache = new Map<string, PatentProfile>();

/** The profile of a publication number (cached: batches and searches ask for the same ones again). */
export function patentProfile(pn: string): PatentProfile {
  const hit = cache.get(pn);
  if (hit) return hit;
  const profile = buildProfile(pn);
  if (cache.size >= 20_000) cache.clear();
  cache.set(pn, profile);
  return profile;
}

/**
 * Draws a profile from the number's seed. The draws happen in one fixed order (the order of the
 * steps below, and of the members within each): changing it changes every answer of the emulator.
 */
function buildProfile(pn: string): PatentProfile {
  const rng = new Rng(hashSeed("patent", pn));
  const country = pn.slice(0, 2);
  // A dated number (a new publication) has its technology from the number; the index's entries theirs.
  const dated = datedPublicationDay(pn) !== null;
  const entry = indexEntry(pn);
  const subject = entry?.subject ?? subjectByHash(pn, dated ? topicOfNew(pn) : undefined);
  const dates = patentDates(pn);
  const applicants = parties(rng, ORGANISATIONS, 1, 3);
  const simple = [pn, ...others(rng, rng.int(0, 3), ["US", "EP", "CN", "JP", "WO"])];
  const inpadoc = [...simple, ...others(rng, rng.int(0, 2))];
  const drawnCitedBy = others(rng, rng.int(0, 12));
  // A new publication is cited only by newer ones, at the date (patent-fresh.ts).
  const citedBy = dated ? [] : [...(entry?.citedBy ?? []), ...drawnCitedBy];
  const y5 = citedBy.length + rng.int(0, 4);
  const priorityClaims = priorityClaimsOf(rng, country, applicants, dates.priorityDay);
  const pct = pctOf(rng, pn, applicants[0]?.country ?? "US", dates);
  return {
    pn,
    patentId: patentIdOf(pn),
    country,
    kind: /[A-Z]\d?$/.exec(pn)?.[0] ?? "A",
    granted: isGrant(pn),
    ...subjectText(rng, subject),
    ...datesOf(dates, subject.design),
    applicationNo: `${country}${isoDay(dates.filingDay).slice(0, 4)}${rng.digits(7)}`,
    pct,
    applicants,
    inventors: parties(rng, PERSON_NAMES, 1, 4),
    assignees: rng.chance(0.8) ? applicants.map((a) => ({ ...a })) : parties(rng, ORGANISATIONS, 1, 2),
    ...classification(rng, subject.topic),
    priorityClaims,
    citedPatents: [...newReferences(pn), ...(entry?.cites ?? []), ...others(rng, rng.int(0, 8))],
    citedNonPatents: rng.sample(NON_PATENT_CITATIONS, rng.int(0, 2)),
    citedBy,
    citedByCounts: citedByCounts(rng, citedBy.length, y5),
    family: familyOf(pn, simple, inpadoc),
    ...contentOf(rng, subject.design, simple),
  };
}

/** Some parties of a pool, copied: a profile's parties are its own. */
function parties(rng: Rng, pool: readonly Party[], min: number, max: number): Party[] {
  return rng.sample(pool, rng.int(min, max)).map((p) => ({ ...p }));
}

/** Other publications of the index (family members, citations), of these countries when given. */
function others(rng: Rng, n: number, countries?: string[]): string[] {
  return Array.from({ length: n }, () => knownPublicationNumber(rng, countries));
}

function priorityClaimsOf(
  rng: Rng,
  country: string,
  applicants: readonly Party[],
  priorityDay: number,
): PatentProfile["priorityClaims"] {
  return Array.from({ length: rng.int(1, 2) }, (_, i) => ({
    number: `${applicants[0]?.country === "US" ? "US" : country}${rng.digits(8)}`,
    date: isoDay(priorityDay + i * 30),
    country: i === 0 ? country : "US",
  }));
}

/** What the patent is about and how it reads: its technology, title and abstract. */
function subjectText(rng: Rng, subject: Subject) {
  return {
    design: subject.design,
    topicIndex: subject.topic,
    topic: TECH_TOPICS[subject.topic] as string,
    phrases: subject.phrases,
    title: titleOf(subject),
    abstract: abstractOf(subject, rng.int(5, 40)),
  };
}

/** Its dates, and its expiry: 15 years after filing for a design, 20 for a patent. */
function datesOf(d: PatentDates, design: boolean) {
  return {
    priorityDay: d.priorityDay,
    filingDay: d.filingDay,
    publicationDay: d.publicationDay,
    grantDay: d.grantDay,
    expiryDay: d.filingDay + (design ? 15 : 20) * 365 + 5,
  };
}

/** IPC and CPC codes: the main group of its technology, a few further ones. */
function classification(rng: Rng, topicIndex: number) {
  const main = IPC[topicIndex] as string;
  return {
    ipcMain: main,
    ipcFurther: rng.sample(IPC, rng.int(0, 3)).filter((c) => c !== main),
    cpcMain: main.replace(/\/(\d+)$/, (_, g: string) => `/${g}${rng.int(1, 9)}`),
    cpcFurther: rng.sample(IPC, rng.int(1, 4)).map((c) => `${c} (2013.01)`),
  };
}

function citedByCounts(rng: Rng, citedBy: number, y5: number): PatentProfile["citedByCounts"] {
  return {
    y3: Math.max(0, citedBy - rng.int(0, citedBy)),
    y5,
    simple: y5 + rng.int(0, 3),
    inpadoc: y5 + rng.int(0, 6),
    vendor: y5 + rng.int(0, 4),
  };
}

/** The three families: ids from the number, members drawn with the profile. */
function familyOf(pn: string, simple: string[], inpadoc: string[]): PatentProfile["family"] {
  return {
    simpleId: (hashSeed("simple-family", pn) % 900_000_000) + 100_000_000,
    simple,
    inpadocId: (hashSeed("inpadoc-family", pn) % 900_000_000) + 100_000_000,
    inpadoc,
    vendorId: (hashSeed("vendor-family", pn) % 900_000_000) + 100_000_000,
    vendor: [...simple],
  };
}

/** Claims, description and drawings: how much there is, and whether it can be read. */
function contentOf(rng: Rng, design: boolean, simple: readonly string[]) {
  return {
    claimCount: design ? 1 : rng.int(3, 24),
    contentUnavailable: rng.chance(0.1),
    relatedPn: simple[1] ?? knownPublicationNumber(rng, ["WO"]),
    imageCount: rng.int(0, 30),
    hasAbstractDrawing: rng.chance(0.85),
    descriptionParagraphs: rng.int(4, 12),
  };
}

/**
 * The PCT data: a WO publication is an international application; about a third of the national
 * publications (not designs) entered the national phase from one, 30 months after the priority.
 */
function pctOf(
  rng: Rng,
  pn: string,
  applicantCountry: string,
  d: { priorityDay: number; filingDay: number },
): PatentProfile["pct"] {
  const wo = pn.startsWith("WO");
  const national = !wo && !isDesignNumber(pn) && rng.chance(0.35);
  if (!wo && !national) return null;
  return {
    applicationNo: `PCT/${applicantCountry}${isoDay(d.filingDay).slice(0, 4)}/0${rng.digits(5)}`,
    filingDay: d.filingDay,
    entryDay: wo ? null : d.priorityDay + 913,
  };
}
