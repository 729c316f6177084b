import { hashSeed, Rng } from "../random.js";
import { dayOf, isoDay, ymdInt } from "./dates.js";
import type { PatentProfile } from "./patent-profile.js";

/**
 * A patent's legal status at a day. Each patent has a fixed life cycle — filed, published,
 * examined, then granted, withdrawn or refused (or still pending); a granted patent lapses when a
 * fee goes unpaid or expires after 20 years, or stays in force — and, from LEGAL_FEED_FROM on, a
 * feed of smaller events: office actions while pending; yearly fees, ownership changes, licences,
 * security interests and lawsuits while in force. Every event is dated on or before the day asked
 * for; the status is what the events up to that day make it. About one patent in ten gets an
 * event in any week, so a weekly refresh sees changes and non-changes.
 */

interface LegalEvent {
  eventDate: string;
  eventCode: string;
  description: string;
}

type Stage =
  | "filed"
  | "published"
  | "examination"
  | "granted"
  | "withdrawn"
  | "refused"
  | "lapsed"
  | "expired"
  | "ceased";
type Tag = "Licensed" | "Pledged" | "In Litigation";

interface Step {
  day: number;
  code: string;
  description: string;
  stage?: Stage;
  tag?: { name: Tag; on: boolean };
}

/** The small events are in the emulated feed from this day; life-cycle milestones at any date. */
const LEGAL_FEED_FROM = dayOf("2025-01-01");
/** Days between two feed events of one patent: about 78 on average, so ~9 % of live patents get one a week. */
const FEED_GAP = [15, 140] as const;
const YEAR = 365;

const STAGES: Record<Stage, { simple: "Pending" | "Active" | "Inactive"; text: string }> = {
  filed: { simple: "Pending", text: "Application Filed" },
  published: { simple: "Pending", text: "Application Published" },
  examination: { simple: "Pending", text: "Under Examination" },
  granted: { simple: "Active", text: "Granted" },
  withdrawn: { simple: "Inactive", text: "Withdrawn" },
  refused: { simple: "Inactive", text: "Refused" },
  lapsed: { simple: "Inactive", text: "Expired - Fee Related" },
  expired: { simple: "Inactive", text: "Expired - Lifetime" },
  // A WO publication is an international application: never granted, its phase ends at 30 months.
  ceased: { simple: "Inactive", text: "International Phase Ended" },
};
const TAGS: readonly Tag[] = ["Licensed", "Pledged", "In Litigation"];
const TAG_EVENTS: Record<Tag, { on: [string, string]; off: [string, string] }> = {
  Licensed: { on: ["LIC", "Licence recorded"], off: ["LICX", "Licence terminated"] },
  Pledged: { on: ["PLDG", "Security interest recorded"], off: ["PLDX", "Security interest released"] },
  "In Litigation": {
    on: ["LITG", 'Infringement action filed ("district court")'],
    off: ["LITX", "Litigation concluded"],
  },
};
/** What happens to a patent in force, by cumulative weight; a tag kind sets (or ends) that tag. */
type InForce = { upTo: number } & ({ event: [string, string] } | { tag: Tag });
const IN_FORCE: readonly InForce[] = [
  { upTo: 0.3, event: ["ADDR", "Change of name or address recorded"] },
  { upTo: 0.5, event: ["ASGN", "Change of ownership recorded"] },
  { upTo: 0.7, event: ["CERT", "Certificate of correction issued"] },
  { upTo: 0.85, tag: "Licensed" },
  { upTo: 0.95, tag: "Pledged" },
  { upTo: 1, tag: "In Litigation" },
];
const PENDING_EVENTS: readonly [string, string][] = [
  ["OA", "Office action issued"],
  ["RESP", "Response to office action filed"],
  ["AMD", "Claims amended"],
  ["TPO", "Third-party observations filed"],
];

/** The legal-status record of a patent at `day` (the caller makes sure it is published by then). */
export function legalRecordAt(p: PatentProfile, day: number): Record<string, unknown> {
  const steps = [...milestonesOf(p), ...feedOf(p, day)]
    .filter((s) => s.day <= day)
    .sort((a, b) => a.day - b.day);
  let stage: Stage = "filed";
  const tags = new Set<Tag>();
  for (const s of steps) {
    if (s.stage) stage = s.stage;
    if (s.tag?.on) tags.add(s.tag.name);
    else if (s.tag) tags.delete(s.tag.name);
  }
  const live = stage === "granted" ? TAGS.filter((t) => tags.has(t)) : [];
  const last = steps[steps.length - 1];
  return {
    patentId: p.patentId,
    pn: p.pn,
    simpleLegalStatus: [STAGES[stage].simple],
    legalStatus: [STAGES[stage].text, ...live],
    eventStatus: steps.map(
      (s): LegalEvent => ({ eventDate: isoDay(s.day), eventCode: s.code, description: s.description }),
    ),
    legalDate: ymdInt(last?.day ?? p.publicationDay),
  };
}

const milestoneCache = new Map<string, Step[]>();

/** The life cycle of a patent, whatever the date (cached: it is asked for at every date). */
function milestonesOf(p: PatentProfile): Step[] {
  const hit = milestoneCache.get(p.pn);
  if (hit) return hit;
  const rng = new Rng(hashSeed("legal", p.pn));
  if (p.country === "WO") return cache(p.pn, internationalPhase(p, rng));
  const outcome = prosecutionOutcome(p, rng);
  const examBy = Math.min(p.publicationDay + 240, (outcome?.day ?? Number.POSITIVE_INFINITY) - 1);
  const steps: Step[] = [
    { day: p.filingDay, code: "APP", description: "Application filed", stage: "filed" },
    { day: p.publicationDay, code: "PUB", description: "Application published", stage: "published" },
    {
      day: rng.int(p.publicationDay, Math.max(p.publicationDay, examBy)),
      code: "EXAM",
      description: "Request for examination filed",
      stage: "examination",
    },
  ];
  if (outcome) steps.push(outcome);
  if (outcome?.stage === "granted") steps.push(endOfTerm(p, outcome.day, rng));
  return cache(p.pn, steps);
}

function cache(pn: string, steps: Step[]): Step[] {
  if (milestoneCache.size >= 20_000) milestoneCache.clear();
  milestoneCache.set(pn, steps);
  return steps;
}

/** A WO application: filed, published with its search report, its international phase over at 30 months. */
function internationalPhase(p: PatentProfile, rng: Rng): Step[] {
  return [
    { day: p.filingDay, code: "APP", description: "International application filed", stage: "filed" },
    {
      day: p.publicationDay,
      code: "PUB",
      description: "International application published",
      stage: "published",
    },
    {
      day: p.publicationDay + rng.int(0, 120),
      code: "ISR",
      description: "International search report published",
    },
    {
      day: Math.max(p.publicationDay + 1, p.priorityDay + 913),
      code: "NPE",
      description: "International phase ended; national phases entered",
      stage: "ceased",
    },
  ];
}

/** A grant publication was granted on its grant day; an application is granted, withdrawn, refused or still pending. */
function prosecutionOutcome(p: PatentProfile, rng: Rng): Step | null {
  const grant = (day: number): Step => ({
    day,
    code: "GRNT",
    description: "Patent granted",
    stage: "granted",
  });
  if (p.grantDay !== null) return grant(p.grantDay);
  const r = rng.next();
  if (r < 0.55) return grant(p.publicationDay + rng.int(250, 1500));
  if (r < 0.75)
    return {
      day: p.publicationDay + rng.int(200, 1200),
      code: "WD",
      description: 'Application "deemed withdrawn"',
      stage: "withdrawn",
    };
  if (r < 0.85)
    return {
      day: p.publicationDay + rng.int(400, 1600),
      code: "REF",
      description: "Application refused",
      stage: "refused",
    };
  return null;
}

/** A quarter of granted patents lapse on an unpaid yearly fee (six months' grace); the rest expire after 20 years. */
function endOfTerm(p: PatentProfile, grantDay: number, rng: Rng): Step {
  const expiry: Step = {
    day: p.expiryDay,
    code: "EXP",
    description: "Expired: end of the 20-year term",
    stage: "expired",
  };
  if (!rng.chance(0.25)) return expiry;
  const firstFeeYear = Math.floor((grantDay - p.filingDay) / YEAR) + 1;
  const lapse = p.filingDay + rng.int(Math.min(firstFeeYear, 19), 19) * YEAR + 183;
  return lapse < p.expiryDay
    ? { day: lapse, code: "LAPS", description: "Lapsed: annual fee not paid", stage: "lapsed" }
    : expiry;
}

/**
 * The feed's events up to `until`, while the patent is alive. The walk draws the same numbers
 * whatever `until` is, so a later date only adds events: the earlier ones never change.
 */
function feedOf(p: PatentProfile, until: number): Step[] {
  const milestones = milestonesOf(p);
  const end = Math.min(until, (milestones.find((s) => s.stage && isEnd(s.stage))?.day ?? Infinity) - 1);
  const grant = milestones.find((s) => s.stage === "granted")?.day ?? null;
  const rng = new Rng(hashSeed("legal-feed", p.pn));
  const tags = new Set<Tag>();
  const out: Step[] = [];
  for (
    let day = Math.max(p.publicationDay, LEGAL_FEED_FROM) + rng.int(...FEED_GAP);
    day <= end;
    day += rng.int(...FEED_GAP)
  ) {
    const [r, r2] = [rng.next(), rng.next()];
    out.push(grant !== null && day > grant ? inForceEvent(day, r, r2, tags) : pendingEvent(day, r));
  }
  return grant === null ? out : [...out, ...yearlyFees(p, grant, end)];
}

const isEnd = (stage: Stage) => STAGES[stage].simple === "Inactive";

function pendingEvent(day: number, r: number): Step {
  const [code, description] = PENDING_EVENTS[Math.floor(r * PENDING_EVENTS.length)] as [string, string];
  return { day, code, description };
}

/**
 * An event of a patent in force. A licence, a security interest or a lawsuit stays on the status
 * until an event ends it; half the events after one end one of those on, so few pile up.
 */
function inForceEvent(day: number, r: number, r2: number, tags: Set<Tag>): Step {
  const on = TAGS.filter((t) => tags.has(t));
  const ending = r2 < 0.5 ? on[Math.floor(r2 * 2 * on.length)] : undefined;
  if (ending) return toggle(day, ending, false, tags);
  const kind = IN_FORCE.find((k) => r < k.upTo) ?? (IN_FORCE[0] as InForce);
  if ("tag" in kind) return toggle(day, kind.tag, !tags.has(kind.tag), tags);
  const [code, description] = kind.event;
  return { day, code, description };
}

function toggle(day: number, name: Tag, on: boolean, tags: Set<Tag>): Step {
  if (on) tags.add(name);
  else tags.delete(name);
  const [code, description] = TAG_EVENTS[name][on ? "on" : "off"];
  return { day, code, description, tag: { name, on } };
}

/** The yearly renewal fee, paid on each anniversary of filing after the grant (in the feed's period). */
function yearlyFees(p: PatentProfile, grantDay: number, end: number): Step[] {
  const out: Step[] = [];
  const from = Math.max(grantDay + 1, LEGAL_FEED_FROM);
  for (
    let year = Math.max(1, Math.ceil((from - p.filingDay) / YEAR));
    p.filingDay + year * YEAR <= end;
    year++
  ) {
    out.push({
      day: p.filingDay + year * YEAR,
      code: "FEE",
      description: `Annual fee paid, year ${year + 1}`,
    });
  }
  return out;
}
