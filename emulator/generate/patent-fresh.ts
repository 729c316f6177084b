import { DEFAULT_EMULATOR_DAY } from "../clock.js";
import { hashSeed, mixSeed } from "../random.js";
import { dayOf, isoDay } from "./dates.js";
import { isKnownPublicationNumber } from "./patent-numbers.js";
import { TECH_TOPICS } from "./vocabulary.js";

/**
 * New publications. The emulated patent office publishes a few applications every day after the
 * default date (so answers at the default date are those of the fixed index before it). Their
 * numbers carry the publication day (`US{yyyy}0{day of year}{serial}A1`, WO, JP and DE alike),
 * and years from 2025 on are never drawn for the fixed index, so the number alone tells a profile
 * when it was published. Each belongs to one technology topic; a search finds those whose titles hold its words,
 * and a new publication cites some earlier ones of its topic, so result sets cite each other.
 */

const NEW_PUBLICATIONS_FROM = DEFAULT_EMULATOR_DAY + 1;
const FIRST_DATED_YEAR = 2025;
/** How far back a new publication looks for earlier ones of its topic to cite, and how likely each is cited. */
const CITATION_WINDOW = 90;
const CITATION_PERCENT = 10;
const OFFICES = ["US", "US", "US", "WO", "JP", "DE"] as const;
const DAY_SEED = hashSeed("new-publications");

export interface NewPublication {
  pn: string;
  day: number;
  topic: number;
}

const pad3 = (n: number) => String(n).padStart(3, "0");

function numberOf(office: (typeof OFFICES)[number], day: number, serial: number): string {
  const year = isoDay(day).slice(0, 4);
  const tail = `${pad3(day - dayOf(`${year}-01-01`) + 1)}${pad3(serial)}`;
  if (office === "US") return `US${year}0${tail}A1`;
  if (office === "WO") return `WO${year}${tail}A1`;
  if (office === "JP") return `JP${year}${tail}A`;
  return `DE10${year}${tail}A1`;
}

/** The publication day a dated number carries (years from 2025 on), else null. */
export function datedPublicationDay(pn: string): number | null {
  const m = /^(?:US(\d{4})0|WO(\d{4})|JP(\d{4})|DE10(\d{4}))(\d{3})\d{3}A1?$/.exec(pn);
  const year = Number(m?.[1] ?? m?.[2] ?? m?.[3] ?? m?.[4] ?? 0);
  if (!m || year < FIRST_DATED_YEAR) return null;
  const first = dayOf(`${year}-01-01`);
  const day = first + Number(m[5]) - 1;
  return day >= first && day < dayOf(`${year + 1}-01-01`) ? day : null;
}

/** The technology topic (index into TECH_TOPICS) of a new publication. */
export function topicOfNew(pn: string): number {
  return hashSeed("new-topic", pn) % TECH_TOPICS.length;
}

const dayCache = new Map<number, NewPublication[]>();

/** What was published on one day (0 to 7 known numbers; none before NEW_PUBLICATIONS_FROM). */
function publishedOn(day: number): NewPublication[] {
  if (day < NEW_PUBLICATIONS_FROM) return [];
  const hit = dayCache.get(day);
  if (hit) return hit;
  const seed = mixSeed(DAY_SEED, day);
  const out: NewPublication[] = [];
  for (let serial = 0; out.length < seed % 8; serial++) {
    const pn = numberOf(
      OFFICES[mixSeed(seed, serial) % OFFICES.length] as (typeof OFFICES)[number],
      day,
      serial,
    );
    if (isKnownPublicationNumber(pn)) out.push({ pn, day, topic: topicOfNew(pn) });
  }
  if (dayCache.size >= 50_000) dayCache.clear();
  dayCache.set(day, out);
  return out;
}

/** Every new publication from NEW_PUBLICATIONS_FROM to `until`, oldest first. */
export function publishedUntil(until: number): NewPublication[] {
  const out: NewPublication[] = [];
  for (let d = NEW_PUBLICATIONS_FROM; d <= until; d++) out.push(...publishedOn(d));
  return out;
}

/** Only numbers of the daily stream cite and are cited: a dated number typed by hand is in no one's references. */
const isNewPublication = (pn: string, day: number) => publishedOn(day).some((p) => p.pn === pn);

const cites = (citing: string, cited: string) => hashSeed("cites", citing, cited) % 100 < CITATION_PERCENT;

/** Earlier new publications of its topic that a new publication cites (none for the fixed index). */
export function newReferences(pn: string): string[] {
  const day = datedPublicationDay(pn);
  if (day === null || !isNewPublication(pn, day)) return [];
  const topic = topicOfNew(pn);
  const out: string[] = [];
  for (let d = Math.max(NEW_PUBLICATIONS_FROM, day - CITATION_WINDOW); d < day; d++)
    for (const q of publishedOn(d)) if (q.topic === topic && cites(pn, q.pn)) out.push(q.pn);
  return out;
}

/** New publications up to `until` that cite `pn`: the inverse of newReferences, so it grows with the date. */
export function newCitations(pn: string, until: number): string[] {
  const day = datedPublicationDay(pn);
  if (day === null || !isNewPublication(pn, day)) return [];
  const topic = topicOfNew(pn);
  const out: string[] = [];
  for (let d = day + 1; d <= Math.min(until, day + CITATION_WINDOW); d++)
    for (const p of publishedOn(d)) if (p.topic === topic && cites(p.pn, pn)) out.push(p.pn);
  return out;
}
