import { hashSeed, mixSeed, Rng } from "../random.js";
import { publicationDayOf } from "./patent-dates.js";
import { knownDesignNumber, knownPublicationNumber } from "./patent-numbers.js";
import { drawSubject, type Subject } from "./patent-subjects.js";
import { TECH_TOPICS } from "./vocabulary.js";

/**
 * The fixed index patent search searches: for each technology, INDEX_SIZE publications of every
 * office and kind (a few designs), each with a subject in that technology. A publication cites
 * up to three earlier ones of its technology that share a phrase of its title, so the results of
 * one search cite each other (and patent-cited-by of the cited one lists the citing ones).
 */

const INDEX_SIZE = 120;
const DESIGN_SHARE = 0.08;

export interface IndexEntry {
  pn: string;
  subject: Subject;
  day: number;
  /** Earlier entries of the technology it cites. */
  cites: string[];
  /** Entries of the technology that cite it. */
  citedBy: string[];
}

let built: { byTopic: IndexEntry[][]; byPn: Map<string, IndexEntry> } | undefined;

function build(): NonNullable<typeof built> {
  const byPn = new Map<string, IndexEntry>();
  const byTopic = TECH_TOPICS.map((_, topic) => {
    const rng = new Rng(hashSeed("patent-index", topic));
    const entries: IndexEntry[] = [];
    while (entries.length < INDEX_SIZE) {
      const design = rng.chance(DESIGN_SHARE);
      const pn = (design && knownDesignNumber(rng)) || knownPublicationNumber(rng);
      const subject = drawSubject(rng, topic, design);
      if (byPn.has(pn)) continue;
      const entry: IndexEntry = { pn, subject, day: publicationDayOf(pn), cites: [], citedBy: [] };
      byPn.set(pn, entry);
      entries.push(entry);
    }
    linkCitations(entries);
    return entries;
  });
  return { byTopic, byPn };
}

const shares = (a: Subject, b: Subject) => a.phrases.some((ph) => b.phrases.includes(ph));

function linkCitations(entries: IndexEntry[]): void {
  const seedOf = new Map(entries.map((o) => [o.pn, hashSeed("index-cites", o.pn)]));
  for (const e of entries) {
    const wanted = hashSeed("index-cite-count", e.pn) % 4;
    if (wanted === 0) continue;
    const earlier = entries
      .filter((o) => o.day < e.day && shares(o.subject, e.subject))
      .map((o) => ({ o, key: mixSeed(e.day, seedOf.get(o.pn) ?? 0) }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.o);
    for (const o of earlier.slice(0, wanted)) {
      e.cites.push(o.pn);
      o.citedBy.push(e.pn);
    }
  }
}

function index(): NonNullable<typeof built> {
  built ??= build();
  return built;
}

/** The index's publications of one technology. */
export function indexOfTopic(topic: number): readonly IndexEntry[] {
  return index().byTopic[topic] ?? [];
}

/** The index entry of a number, when the index holds it. */
export function indexEntry(pn: string): IndexEntry | undefined {
  return index().byPn.get(pn);
}
