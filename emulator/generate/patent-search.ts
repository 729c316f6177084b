import type { z } from "zod";
import { canonicalJson } from "../../core/hash.js";
import type { patentSearchRequest } from "../../schema/patent-search.js";
import { hashSeed, mixSeed, Rng } from "../random.js";
import { isoDay } from "./dates.js";
import { isGrant, knownPublicationNumber } from "./patent-numbers.js";
import { patentProfile } from "./patent-profile.js";

type PatentSearch = z.output<typeof patentSearchRequest>;

/**
 * A page of patent search results. The query (everything but num and page) fixes a total of 15–60
 * results, so pages end; every publicationNumber is one the identifier operations know.
 *
 * @example patentSearch(patentSearchRequest.parse({ q: "battery" })).results.length // 10
 */
export function patentSearch(body: PatentSearch): Record<string, unknown> {
  const { num, page, ...query } = body;
  const seed = hashSeed("websearch-patent-search", canonicalJson(query));
  const total = 15 + (seed % 46);
  const countries = (body.country ?? "")
    .split(",")
    .map((c) => c.trim().toUpperCase())
    .filter((c) => /^[A-Z]{2}$/.test(c));
  const results: Record<string, unknown>[] = [];
  for (let i = (page - 1) * num; i < Math.min(total, page * num); i++) {
    const rng = new Rng(mixSeed(seed, i + 1));
    let pn = knownPublicationNumber(rng, countries);
    while (body.status !== undefined && isGrant(pn) !== (body.status === "GRANT"))
      pn = knownPublicationNumber(rng, countries);
    const p = patentProfile(pn);
    results.push({
      position: i + 1,
      title: p.title,
      snippet: `… ${body.q} … ${p.abstract.slice(0, 120)}…`,
      publicationNumber: pn,
      patentId: p.patentId,
      priorityDate: isoDay(p.priorityDay),
      filingDate: isoDay(p.filingDay),
      grantDate: p.grantDay === null ? null : isoDay(p.grantDay),
      publicationDate: isoDay(p.publicationDay),
      inventor: body.inventor ?? p.inventors[0]?.name ?? null,
      assignee: body.assignee ?? p.assignees[0]?.name ?? null,
      country: p.country,
      language: body.language ?? "en",
      pdf: `https://patentimages.emulator.example/pdfs/${pn}.pdf`,
    });
  }
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
