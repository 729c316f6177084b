import { hashSeed, Rng } from "../random.js";
import { TECH_TOPICS, TOPIC_PHRASES } from "./vocabulary.js";

/**
 * What a patent is about: its technology (an index into TECH_TOPICS) and three phrases of that
 * technology's vocabulary, from which its title and abstract are written. Search relevance is the
 * number of the query's words its title holds, so results are about what was asked for.
 */
export interface Subject {
  topic: number;
  phrases: [string, string, string];
  form: number;
  design: boolean;
}

const STOP_WORDS = new Set([
  "and",
  "for",
  "the",
  "with",
  "having",
  "using",
  "method",
  "methods",
  "system",
  "systems",
  "device",
  "devices",
  "apparatus",
  "producing",
  "same",
  "controlling",
  "ornamental",
  "design",
]);

/** Lower-case word stems of a text, generic words left out ("Batteries, cooling" → battery, cooling). */
export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length < 3 || STOP_WORDS.has(w)) continue;
    out.add(w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w);
  }
  return out;
}

/** How many of the query's stems a title holds. */
export function relevance(query: ReadonlySet<string>, title: string): number {
  let n = 0;
  for (const s of stems(title)) if (query.has(s)) n++;
  return n;
}

/** The technologies whose vocabulary holds one of the query's stems. */
export function topicsNamed(query: ReadonlySet<string>): number[] {
  return TECH_TOPICS.map((_, i) => i).filter((i) =>
    (TOPIC_PHRASES[i] ?? []).some((ph) => relevance(query, ph) > 0),
  );
}

/** A subject of `topic` drawn from `rng`: three distinct phrases and a title form. */
export function drawSubject(rng: Rng, topic: number, design: boolean): Subject {
  const [a, b, c] = rng.sample(TOPIC_PHRASES[topic] ?? [], 3) as [string, string, string];
  return { topic, phrases: [a, b, c], form: rng.int(0, 3), design };
}

/** The subject of a number no index placed: drawn from the number alone. */
export function subjectByHash(pn: string, topic?: number): Subject {
  const rng = new Rng(hashSeed("subject", pn));
  const t = rng.int(0, TECH_TOPICS.length - 1);
  return drawSubject(rng, topic ?? t, isDesignNumber(pn));
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const article = (s: string) => (/^[aeiou]/.test(s) ? `an ${s}` : `a ${s}`);

export function titleOf(s: Subject): string {
  const [a, b, c] = s.phrases;
  if (s.design) return `Ornamental design for ${article(a)}`;
  switch (s.form) {
    case 0:
      return `${cap(a)} with ${b}`;
    case 1:
      return `${cap(a)} having ${article(b)} and ${article(c)}`;
    case 2:
      return `Method for controlling ${article(a)} using ${article(b)}`;
    default:
      return `${cap(a)}, ${b} and method for producing the same`;
  }
}

/** The abstract: quotes, a comma and a percent sign, as real abstracts have. */
export function abstractOf(s: Subject, percent: number): string {
  const [a, b, c] = s.phrases;
  if (s.design) return `The ornamental design for ${article(a)}, as shown and described ("Fig. 1–7").`;
  return `${cap(article(a))} is disclosed, comprising ${article(b)}, a controller and ${article(c)}; the controller adjusts the output "in real time", reducing losses by ${percent}%.`;
}

/** Design publications: US `USD…S`, and the S kind of the offices that number designs with their patents. */
export function isDesignNumber(pn: string): boolean {
  return /^USD\d+S\d?$/.test(pn) || /^(CN|JP|KR)\d+S$/.test(pn);
}
