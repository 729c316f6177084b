import { hashSeed, Rng } from "../random.js";
import { isoDay } from "./dates.js";
import { datedPublicationDay, newReferences, topicOfNew } from "./patent-fresh.js";
import { isGrant, knownPublicationNumber, patentIdOf } from "./patent-numbers.js";
import { ABSTRACT_FORMS, ORGANISATIONS, PERSON_NAMES, TECH_TOPICS, TITLE_FORMS } from "./vocabulary.js";

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
  topicIndex: number;
  topic: string;
  title: string;
  abstract: string;
  priorityDay: number;
  filingDay: number;
  publicationDay: number;
  grantDay: number | null;
  expiryDay: number;
  applicationNo: string;
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

function buildProfile(pn: string): PatentProfile {
  const rng = new Rng(hashSeed("patent", pn));
  const country = pn.slice(0, 2);
  const kind = /[A-Z]\d?$/.exec(pn)?.[0] ?? "A";
  const granted = isGrant(pn);
  // A dated number (a new publication) has its topic and day from the number; the draws are made
  // all the same, so every other patent's profile stays what it always was.
  const dated = datedPublicationDay(pn);
  const drawnTopic = rng.int(0, TECH_TOPICS.length - 1);
  const topicIndex = dated === null ? drawnTopic : topicOfNew(pn);
  const topic = TECH_TOPICS[topicIndex] as string;
  // Numbers that carry a year (US2021…A1, JP2020…A, WO2019…, DE102018…) are published that year.
  const year = Number(/^(?:US|JP|WO|DE10)(20\d\d)/.exec(pn)?.[1] ?? rng.int(2010, 2023));
  const drawnDay = Math.floor(Date.UTC(year, rng.int(0, 11), rng.int(1, 28)) / 86_400_000);
  const publicationDay = dated ?? drawnDay;
  const filingDay = publicationDay - rng.int(540, 620);
  const priorityDay = filingDay - rng.int(0, 365);
  const grantDay = granted ? publicationDay + rng.int(200, 900) : null;
  const parties = (pool: readonly Party[], min: number, max: number) =>
    rng.sample(pool, rng.int(min, max)).map((p) => ({ ...p }));
  const applicants = parties(ORGANISATIONS, 1, 3);
  const others = (n: number, countries?: string[]) =>
    Array.from({ length: n }, () => knownPublicationNumber(rng, countries));
  const simple = [pn, ...others(rng.int(0, 3), ["US", "EP", "CN", "JP", "WO"])];
  const inpadoc = [...simple, ...others(rng.int(0, 2))];
  const drawnCitedBy = others(rng.int(0, 12));
  // A new publication is cited only by newer ones, at the date (patent-fresh.ts).
  const citedBy = dated === null ? drawnCitedBy : [];
  const y5 = citedBy.length + rng.int(0, 4);
  skipFormerLegalDraws(rng, grantDay !== null);
  const priorityClaims = Array.from({ length: rng.int(1, 2) }, (_, i) => ({
    number: `${applicants[0]?.country === "US" ? "US" : country}${rng.digits(8)}`,
    date: isoDay(priorityDay + i * 30),
    country: i === 0 ? country : "US",
  }));
  return {
    pn,
    patentId: patentIdOf(pn),
    country,
    kind,
    granted,
    topicIndex,
    topic,
    title: TITLE_FORMS.en(topic),
    abstract: ABSTRACT_FORMS.en(topic),
    priorityDay,
    filingDay,
    publicationDay,
    grantDay,
    expiryDay: filingDay + 20 * 365 + 5,
    applicationNo: `${country}${isoDay(filingDay).slice(0, 4)}${rng.digits(7)}`,
    applicants,
    inventors: parties(PERSON_NAMES, 1, 4),
    assignees: rng.chance(0.8) ? applicants.map((a) => ({ ...a })) : parties(ORGANISATIONS, 1, 2),
    ipcMain: IPC[topicIndex] as string,
    ipcFurther: rng.sample(IPC, rng.int(0, 3)).filter((c) => c !== IPC[topicIndex]),
    cpcMain: `${IPC[topicIndex]}`.replace(/\/(\d+)$/, (_, g: string) => `/${g}${rng.int(1, 9)}`),
    cpcFurther: rng.sample(IPC, rng.int(1, 4)).map((c) => `${c} (2013.01)`),
    priorityClaims,
    citedPatents: [...newReferences(pn), ...others(rng.int(0, 8))],
    citedNonPatents: rng.sample(NON_PATENT_CITATIONS, rng.int(0, 2)),
    citedBy,
    citedByCounts: {
      y3: Math.max(0, citedBy.length - rng.int(0, citedBy.length)),
      y5,
      simple: y5 + rng.int(0, 3),
      inpadoc: y5 + rng.int(0, 6),
      vendor: y5 + rng.int(0, 4),
    },
    family: {
      simpleId: (hashSeed("simple-family", pn) % 900_000_000) + 100_000_000,
      simple,
      inpadocId: (hashSeed("inpadoc-family", pn) % 900_000_000) + 100_000_000,
      inpadoc,
      vendorId: (hashSeed("vendor-family", pn) % 900_000_000) + 100_000_000,
      vendor: [...simple],
    },
    claimCount: rng.int(3, 24),
    contentUnavailable: rng.chance(0.1),
    relatedPn: simple[1] ?? knownPublicationNumber(rng, ["WO"]),
    imageCount: rng.int(0, 30),
    hasAbstractDrawing: rng.chance(0.85),
    descriptionParagraphs: rng.int(4, 12),
  };
}

/**
 * The legal status was once drawn here, from the same generator; its draws are still made so that
 * the members drawn after it (priority claims, citations, claims…) stay what they were.
 */
function skipFormerLegalDraws(rng: Rng, granted: boolean): void {
  if (!granted) rng.next();
  else if (!rng.chance(0.2)) rng.next();
}
