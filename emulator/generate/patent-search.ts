import type { z } from "zod";
import type { patentSearchRequest } from "../../schema/patent-search.js";
import { DEFAULT_EMULATOR_DAY } from "../clock.js";
import { hashSeed } from "../random.js";
import { dayOf, isoDay } from "./dates.js";
import { publishedUntil } from "./patent-fresh.js";
import { indexOfTopic } from "./patent-index.js";
import { legalRecordAt } from "./patent-legal.js";
import { isGrant } from "./patent-numbers.js";
import { type PatentProfile, patentProfile } from "./patent-profile.js";
import { scholarHits } from "./patent-scholar.js";
import { relevance, stems, titleOf, topicsNamed } from "./patent-subjects.js";
import { TECH_TOPICS } from "./vocabulary.js";

type PatentSearch = z.output<typeof patentSearchRequest>;
interface Hit {
  pn: string;
  score: number;
}

/**
 * A page of patent search results at a day (default: the emulator's default date). The query's
 * words find the publications of the index (patent-index.ts) and of the daily stream
 * (patent-fresh.ts) whose titles hold them, most of its words first; every other member
 * restricts that set (so a filtered search finds a subset of the unfiltered one): published by the
 * day, country, status, type, the after/before dates, inventor, assignee, language and
 * litigation; `sort` orders by publication date, `clustered` groups by technology, `patents:
 * false` leaves patents out and `scholar: true` adds scholarly articles. Every publicationNumber
 * is one the identifier operations know.
 *
 * @example patentSearch(patentSearchRequest.parse({ q: "battery" })).results.length // 10
 */
export function patentSearch(body: PatentSearch, day = DEFAULT_EMULATOR_DAY): Record<string, unknown> {
  const { num, page } = body;
  const patents = body.patents ? searchHits(body, day) : [];
  const articles = body.scholar ? scholarHits(body, day) : [];
  const total = patents.length + articles.length;
  const from = (page - 1) * num;
  const results = [
    ...patents.slice(from, from + num).map((p, i) => resultOf(p, from + i + 1, body, day)),
    ...articles
      .slice(Math.max(0, from - patents.length), Math.max(0, from + num - patents.length))
      .map((a, i) => ({ position: Math.max(from, patents.length) + i + 1, ...a })),
  ];
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

const universeCache = new Map<string, { hits: Hit[]; topics: number[]; fallback: boolean }>();

/**
 * The index's publications a query finds, whatever the date and the filters. A query that names
 * no technology of the vocabulary finds 15–60 of one technology (by hash), as a search engine
 * answers something to any query.
 */
function universe(q: string): { hits: Hit[]; topics: number[]; fallback: boolean } {
  const hit = universeCache.get(q);
  if (hit) return hit;
  const query = stems(q);
  const named = topicsNamed(query);
  let found: { hits: Hit[]; topics: number[]; fallback: boolean };
  if (named.length > 0) {
    const hits = named.flatMap((t) =>
      indexOfTopic(t)
        .map((e) => ({ pn: e.pn, score: relevance(query, titleOf(e.subject)) }))
        .filter((h) => h.score > 0),
    );
    found = { hits, topics: named, fallback: false };
  } else {
    const topic = hashSeed("query-topic", q) % TECH_TOPICS.length;
    const size = 15 + (hashSeed("websearch-patent-search", q) % 46);
    found = {
      hits: indexOfTopic(topic)
        .slice(0, size)
        .map((e) => ({ pn: e.pn, score: 0 })),
      topics: [topic],
      fallback: true,
    };
  }
  if (universeCache.size >= 2000) universeCache.clear();
  universeCache.set(q, found);
  return found;
}

/** Every publication the query finds at `day`, in the order asked for. */
function searchHits(body: PatentSearch, day: number): PatentProfile[] {
  const { hits, topics, fallback } = universe(body.q);
  const query = stems(body.q);
  const fresh = publishedUntil(day)
    .filter((n) => (fallback ? topics.includes(n.topic) : true))
    .map((n) => ({ pn: n.pn, score: fallback ? 0 : relevance(query, patentProfile(n.pn).title) }))
    .filter((h) => fallback || h.score > 0);
  const keep = filtersOf(body, day);
  const found = [...hits, ...fresh]
    .map((h) => ({ ...h, p: patentProfile(h.pn) }))
    .filter((h) => keep(h.p))
    .sort((a, b) => orderOf(body, a, b));
  const profiles = found.map((h) => h.p);
  return body.clustered ? clustered(profiles) : profiles;
}

function orderOf(body: PatentSearch, a: Hit & { p: PatentProfile }, b: Hit & { p: PatentProfile }): number {
  const byDay = a.p.publicationDay - b.p.publicationDay;
  if (body.sort === "new" && byDay !== 0) return -byDay;
  if (body.sort === "old" && byDay !== 0) return byDay;
  if (!body.sort && a.score !== b.score) return b.score - a.score;
  return hashSeed("rank", body.q, a.pn) - hashSeed("rank", body.q, b.pn) || (a.pn < b.pn ? -1 : 1);
}

/** Results grouped by technology (its main IPC group), each group where its first result was. */
function clustered(profiles: PatentProfile[]): PatentProfile[] {
  const groups = new Map<string, PatentProfile[]>();
  for (const p of profiles) groups.set(p.ipcMain, [...(groups.get(p.ipcMain) ?? []), p]);
  return [...groups.values()].flat();
}

const DATE_MEMBER = { priority: "priorityDay", filing: "filingDay", publication: "publicationDay" } as const;

/** `publication:20240131` → which date of a patent, and its day. */
function dateBound(bound: string | undefined): { member: keyof typeof DATE_MEMBER; day: number } | null {
  const m = bound ? /^(priority|filing|publication):(\d{4})(\d{2})(\d{2})$/.exec(bound) : null;
  return m ? { member: m[1] as keyof typeof DATE_MEMBER, day: dayOf(`${m[2]}-${m[3]}-${m[4]}`) } : null;
}

/** The restrictions of a request, as one test of a patent (cheap tests first). */
function filtersOf(body: PatentSearch, day: number): (p: PatentProfile) => boolean {
  const countries = codes(body.country);
  const languages = codes(body.language).map((l) => LANGUAGE_CODES[l] ?? l.toLowerCase());
  const after = dateBound(body.after);
  const before = dateBound(body.before);
  return (p) =>
    p.publicationDay <= day &&
    (countries.length === 0 || countries.includes(p.country)) &&
    (body.status === undefined || isGrant(p.pn) === (body.status === "GRANT")) &&
    (body.type === undefined || p.design === (body.type === "DESIGN")) &&
    (after === null || p[DATE_MEMBER[after.member]] >= after.day) &&
    (before === null || p[DATE_MEMBER[before.member]] <= before.day) &&
    (languages.length === 0 || languages.includes(documentLanguage(p))) &&
    (body.inventor === undefined || matchingName(p.inventors, body.inventor) !== null) &&
    (body.assignee === undefined || matchingName(p.assignees, body.assignee) !== null) &&
    (body.litigation === undefined || litigated(p, day) === (body.litigation === "YES"));
}

const codes = (list: string | undefined) =>
  (list ?? "")
    .split(",")
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== "");

const LANGUAGE_CODES: Record<string, string> = {
  ENGLISH: "en",
  GERMAN: "de",
  FRENCH: "fr",
  CHINESE: "zh",
  JAPANESE: "ja",
  KOREAN: "ko",
};

/** The language a publication is written in: its office's, EP's and WO's by hash among theirs. */
function documentLanguage(p: PatentProfile): string {
  const pick = (langs: string[]) => langs[hashSeed("language", p.pn) % langs.length] as string;
  switch (p.country) {
    case "CN":
      return "zh";
    case "JP":
      return "ja";
    case "KR":
      return "ko";
    case "DE":
      return "de";
    case "EP":
      return pick(["en", "en", "de", "fr"]);
    case "WO":
      return pick(["en", "en", "zh", "ja"]);
    default:
      return "en";
  }
}

const fold = (s: string) =>
  s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");

/** The first name among `parties` holding every word of `wanted` (case and accents aside), else null. */
function matchingName(parties: readonly { name: string }[], wanted: string): string | null {
  const words = fold(wanted);
  if (words.length === 0) return null;
  return parties.find((x) => words.every((w) => fold(x.name).includes(w)))?.name ?? null;
}

/** Whether an infringement action was ever recorded for the patent by `day` (its legal events say so). */
function litigated(p: PatentProfile, day: number): boolean {
  return (legalRecordAt(p, day)["eventStatus"] as { eventCode: string }[]).some(
    (e) => e.eventCode === "LITG",
  );
}

function resultOf(
  p: PatentProfile,
  position: number,
  body: PatentSearch,
  day: number,
): Record<string, unknown> {
  return {
    position,
    title: p.title,
    snippet: `… ${p.abstract.slice(0, 160)}…`,
    publicationNumber: p.pn,
    patentId: p.patentId,
    priorityDate: isoDay(p.priorityDay),
    filingDate: isoDay(p.filingDay),
    // A grant still to come on the emulated day is not shown.
    grantDate: p.grantDay === null || p.grantDay > day ? null : isoDay(p.grantDay),
    publicationDate: isoDay(p.publicationDay),
    inventor: (body.inventor && matchingName(p.inventors, body.inventor)) ?? p.inventors[0]?.name ?? null,
    assignee: (body.assignee && matchingName(p.assignees, body.assignee)) ?? p.assignees[0]?.name ?? null,
    country: p.country,
    language: documentLanguage(p),
    pdf: `https://patentimages.emulator.example/pdfs/${p.pn}.pdf`,
  };
}
