import { hashSeed, Rng } from "../random.js";
import { isoDay, ymdInt } from "./dates.js";
import { isGrant, knownPublicationNumber, patentIdOf } from "./patent-numbers.js";
import { ABSTRACT_FORMS, ORGANISATIONS, PERSON_NAMES, TECH_TOPICS, TITLE_FORMS } from "./vocabulary.js";

export interface Party {
  name: string;
  country: string;
}

export interface LegalEvent {
  eventDate: string;
  eventCode: string;
  description: string;
}

/**
 * Everything the emulator says about one patent, derived from its publication number alone, so
 * search results and the 13 identifier operations agree about the same patent.
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
  legal: { simple: string[]; status: string[]; events: LegalEvent[]; legalDate: number };
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
  const topicIndex = rng.int(0, TECH_TOPICS.length - 1);
  const topic = TECH_TOPICS[topicIndex] as string;
  // Numbers that carry a year (US2021…A1, JP2020…A, WO2019…, DE102018…) are published that year.
  const year = Number(/^(?:US|JP|WO|DE10)(20\d\d)/.exec(pn)?.[1] ?? rng.int(2010, 2023));
  const publicationDay = Math.floor(Date.UTC(year, rng.int(0, 11), rng.int(1, 28)) / 86_400_000);
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
  const citedBy = others(rng.int(0, 12));
  const y5 = citedBy.length + rng.int(0, 4);
  const status = legalStatus(rng, filingDay, publicationDay, grantDay);
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
    citedPatents: others(rng.int(0, 8)),
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
    legal: status,
    claimCount: rng.int(3, 24),
    contentUnavailable: rng.chance(0.1),
    relatedPn: simple[1] ?? knownPublicationNumber(rng, ["WO"]),
    imageCount: rng.int(0, 30),
    hasAbstractDrawing: rng.chance(0.85),
    descriptionParagraphs: rng.int(4, 12),
  };
}

function legalStatus(rng: Rng, filingDay: number, publicationDay: number, grantDay: number | null) {
  const events: LegalEvent[] = [
    { eventDate: isoDay(filingDay), eventCode: "APP", description: "Application filed" },
    { eventDate: isoDay(publicationDay), eventCode: "PUB", description: "Application published" },
  ];
  let simple = ["Pending"];
  let status = ["Application Published"];
  if (grantDay !== null) {
    events.push({ eventDate: isoDay(grantDay), eventCode: "GRNT", description: "Patent granted" });
    simple = ["Active"];
    status = ["Granted"];
    if (rng.chance(0.2)) {
      events.push({
        eventDate: isoDay(grantDay + 1460),
        eventCode: "EXP",
        description: "Lapsed: annual fee not paid",
      });
      simple = ["Inactive"];
      status = ["Expired - Fee Related"];
    } else if (rng.chance(0.5)) {
      events.push({
        eventDate: isoDay(grantDay + 1270),
        eventCode: "FEE",
        description: "Maintenance fee paid, 4th year",
      });
    }
  } else if (rng.chance(0.25)) {
    events.push({
      eventDate: isoDay(publicationDay + 400),
      eventCode: "WD",
      description: 'Application "deemed withdrawn"',
    });
    simple = ["Inactive"];
    status = ["Withdrawn"];
  }
  const last = events[events.length - 1] as LegalEvent;
  return { simple, status, events, legalDate: ymdInt(Math.floor(Date.parse(last.eventDate) / 86_400_000)) };
}
