import type { z } from "zod";
import { canonicalJson } from "../../core/hash.js";
import type { patentSearchRequest } from "../../schema/patent-search.js";
import { DEFAULT_EMULATOR_DAY } from "../clock.js";
import { hashSeed, mixSeed, Rng } from "../random.js";
import { isoDay } from "./dates.js";
import { publishedUntil, queryTopics } from "./patent-fresh.js";
import { isGrant, knownPublicationNumber } from "./patent-numbers.js";
import { patentProfile } from "./patent-profile.js";

type PatentSearch = z.output<typeof patentSearchRequest>;

/**
 * A page of patent search results at a day (default: the emulator's default date). The query
 * (everything but num and page) fixes 15–60 results from the fixed index; new publications of the
 * topics it names join them day by day after the default date, ranked among them by relevance, so
 * a query's total grows with the date and results move down the pages. Only patents published by
 * the day are found; every publicationNumber is one the identifier operations know.
 *
 * @example patentSearch(patentSearchRequest.parse({ q: "battery" })).results.length // 10
 */
export function patentSearch(body: PatentSearch, day = DEFAULT_EMULATOR_DAY): Record<string, unknown> {
  const { num, page } = body;
  const found = searchHits(body, day);
  const total = found.length;
  const results = found
    .slice((page - 1) * num, page * num)
    .map((pn, i) => resultOf(pn, (page - 1) * num + i + 1, body, day));
  const more = page * num < total;
  return {
    results,
    searchInformation: { totalResults: total, page, timeTakenDisplayed: 0.31 },
    pagination: more ? { current: page, next: page + 1 } : { current: page },
    summary: null,
    total,
    page,
    pageSize: num,
    totalPage: Math.ceil(total / num),
  };
}

/** Every publication number the query finds at `day`, most relevant first. */
function searchHits(body: PatentSearch, day: number): string[] {
  const { num: _num, page: _page, ...query } = body;
  const key = canonicalJson(query);
  const seed = hashSeed("websearch-patent-search", key);
  const base = 15 + (seed % 46);
  const countries = (body.country ?? "")
    .split(",")
    .map((c) => c.trim().toUpperCase())
    .filter((c) => /^[A-Z]{2}$/.test(c));
  // The fixed index keeps its order; a new publication gets a relevance in (0, 1) by hash.
  const hits: { pn: string; score: number }[] = [];
  for (let i = 0; i < base; i++) {
    const pn = indexedHit(seed, i, countries, body.status);
    if (patentProfile(pn).publicationDay <= day) hits.push({ pn, score: (base - i) / (base + 1) });
  }
  if (body.status !== "GRANT") {
    for (const p of publishedUntil(queryTopics(body.q), day)) {
      if (countries.length === 0 || countries.includes(p.pn.slice(0, 2)))
        hits.push({ pn: p.pn, score: (hashSeed("relevance", key, p.pn) + 1) / 4294967297 });
    }
  }
  return hits.sort((a, b) => b.score - a.score).map((h) => h.pn);
}

/** The i-th result of the fixed index for a query, as it has always been. */
function indexedHit(seed: number, i: number, countries: string[], status: PatentSearch["status"]): string {
  const rng = new Rng(mixSeed(seed, i + 1));
  let pn = knownPublicationNumber(rng, countries);
  while (status !== undefined && isGrant(pn) !== (status === "GRANT"))
    pn = knownPublicationNumber(rng, countries);
  return pn;
}

function resultOf(pn: string, position: number, body: PatentSearch, day: number): Record<string, unknown> {
  const p = patentProfile(pn);
  return {
    position,
    title: p.title,
    snippet: `… ${body.q} … ${p.abstract.slice(0, 120)}…`,
    publicationNumber: pn,
    patentId: p.patentId,
    priorityDate: isoDay(p.priorityDay),
    filingDate: isoDay(p.filingDay),
    // A grant still to come on the emulated day is not shown.
    grantDate: p.grantDay === null || p.grantDay > day ? null : isoDay(p.grantDay),
    publicationDate: isoDay(p.publicationDay),
    inventor: body.inventor ?? p.inventors[0]?.name ?? null,
    assignee: body.assignee ?? p.assignees[0]?.name ?? null,
    country: p.country,
    language: body.language ?? "en",
    pdf: `https://patentimages.emulator.example/pdfs/${pn}.pdf`,
  };
}
