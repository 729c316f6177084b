import type { z } from "zod";
import type { patentSearchRequest } from "../../schema/patent-search.js";
import { hashHex, hashSeed, Rng } from "../random.js";
import { dayOf, isoDay, randomDay } from "./dates.js";
import { stems } from "./patent-subjects.js";
import { PERSON_NAMES } from "./vocabulary.js";

type PatentSearch = z.output<typeof patentSearchRequest>;

const JOURNALS = [
  "IEEE Transactions on Industrial Electronics",
  "Journal für Technik",
  "Applied Energy",
  "Nature Communications",
];

/**
 * `scholar: true`: a few scholarly articles about the query (their titles hold its words), after
 * the patents. They have no office, status, type, inventor, assignee or litigation, so a search
 * restricted by any of those finds none; their one date answers the after/before bounds of every kind.
 */
export function scholarHits(body: PatentSearch, day: number): Record<string, unknown>[] {
  if (body.country || body.status || body.type || body.inventor || body.assignee || body.litigation)
    return [];
  if (body.language && !body.language.split(",").some((l) => /^(en|english)$/i.test(l.trim()))) return [];
  const words = [...stems(body.q)];
  const rng = new Rng(hashSeed("scholar", body.q));
  const bound = (b: string | undefined) =>
    b ? dayOf(b.replace(/^\w+:(\d{4})(\d{2})(\d{2})$/, "$1-$2-$3")) : null;
  const after = bound(body.after);
  const before = bound(body.before);
  const out: Record<string, unknown>[] = [];
  for (let i = rng.int(2, 6); i > 0; i--) {
    const published = randomDay(rng, 2012, 2025);
    const author = rng.pick(PERSON_NAMES).name;
    const journal = rng.pick(JOURNALS);
    if (published > day || (after !== null && published < after) || (before !== null && published > before))
      continue;
    const subject = words.length > 0 ? words.join(" ") : body.q;
    out.push({
      title: `A study of ${subject}: models and measurements`,
      snippet: `… we measure ${subject} under load; results "agree within 4%" …`,
      scholar: true,
      author,
      publication: journal,
      publicationDate: isoDay(published),
      link: `https://scholar.emulator.example/article/${hashHex(12, body.q, i)}`,
    });
  }
  return out;
}
