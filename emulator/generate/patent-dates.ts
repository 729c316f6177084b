import { hashSeed, Rng } from "../random.js";
import { dayOf } from "./dates.js";
import { datedPublicationDay } from "./patent-fresh.js";
import { isGrant } from "./patent-numbers.js";
import { grantSharesApplicationNumber, seriesDay } from "./patent-series.js";
import { isDesignNumber } from "./patent-subjects.js";

/**
 * A publication's dates, from its number alone (so search, the index and every identifier
 * operation agree): published when its series or its year says; a grant (B, or a design's S) is
 * published on its grant day, an EP or CN grant a year or three after the application it shares
 * its number with; filed 18 to 20 months before an application is published, a few years before a
 * grant; the priority up to a year before the filing (an application is published 18 months after it).
 */
export interface PatentDates {
  priorityDay: number;
  filingDay: number;
  publicationDay: number;
  grantDay: number | null;
}

const cache = new Map<string, PatentDates>();

export function patentDates(pn: string): PatentDates {
  const hit = cache.get(pn);
  if (hit) return hit;
  const dates = compute(pn);
  if (cache.size >= 50_000) cache.clear();
  cache.set(pn, dates);
  return dates;
}

export const publicationDayOf = (pn: string): number => patentDates(pn).publicationDay;

function compute(pn: string): PatentDates {
  const rng = new Rng(hashSeed("patent-dates", pn));
  const granted = isGrant(pn);
  const first = datedPublicationDay(pn) ?? seriesDay(pn) ?? dayInYear(pn, rng);
  const publicationDay = grantSharesApplicationNumber(pn) ? first + rng.int(400, 1100) : first;
  // An application is published 18 months after its priority, filed within the priority year.
  const earliest = isDesignNumber(pn)
    ? publicationDay - rng.int(300, 700)
    : granted && !grantSharesApplicationNumber(pn)
      ? publicationDay - rng.int(700, 1400)
      : first - rng.int(540, 560);
  const priorityDay = earliest - (isDesignNumber(pn) ? 0 : rng.int(0, 1) * rng.int(0, 60));
  const filingDay = isDesignNumber(pn) ? earliest : Math.min(earliest + rng.int(0, 365), first - 150);
  return { priorityDay, filingDay, publicationDay, grantDay: granted ? publicationDay : null };
}

/** A day of the year a number carries (US2021…A1, JP2020…A, WO2019…, DE102018…), else of 2010–2023. */
function dayInYear(pn: string, rng: Rng): number {
  const year = Number(/^(?:US|JP|WO|DE10)(20\d\d)/.exec(pn)?.[1] ?? rng.int(2010, 2023));
  const start = dayOf(`${year}-01-01`);
  return start + rng.int(0, dayOf(`${year + 1}-01-01`) - start - 1);
}
