import { identifierKey } from "../../schema/patent-identifier.js";
import { hashSeed, type Rng } from "../random.js";

/**
 * Publication numbers: their forms per office, and which ones the emulator "knows". A number is
 * unknown when it does not look like a publication number or when its hash says so (about one in
 * ten), so batches come back with fewer records than asked, as they do from the real service.
 */

const LOOKS_LIKE = /^[A-Z]{2}D?\d{4,13}[A-Z]\d?$/;

const PATENT_COUNTRIES = ["US", "EP", "CN", "JP", "WO", "KR", "DE"] as const;

/** `US11234567B2`, `patent/US11234567B2/en` or ` us11234567b2 ` → `US11234567B2`. */
export const normalizePublicationNumber = identifierKey;

export function isKnownPublicationNumber(pn: string): boolean {
  return LOOKS_LIKE.test(pn) && hashSeed("patent-known", pn) % 10 !== 0;
}

/** The canonical patentId of a publication number (the form patent search gives). */
export function patentIdOf(pn: string): string {
  return `patent/${pn}/en`;
}

// Serial ranges whose publications (and, for B kinds, grants) are out before the default emulated
// date (2026-11-01), dated by their series (patent-series.ts). Numbers of 2025 and 2026 carry their
// day of the year, as the daily stream's do (patent-fresh.ts), up to the default date.
const LAST_DAY_OF_YEAR: Record<number, number> = { 2025: 365, 2026: 304 };

function serialOf(rng: Rng, year: number): string {
  const lastDay = LAST_DAY_OF_YEAR[year];
  return lastDay ? `${String(rng.int(1, lastDay)).padStart(3, "0")}${rng.digits(3)}` : rng.digits(6);
}

function candidate(rng: Rng, country: string): string {
  const year = rng.int(2012, 2026);
  const serial = serialOf(rng, year);
  switch (country) {
    case "US":
      return rng.chance(0.6)
        ? `US${rng.int(10_000_000, 12_640_000)}${rng.pick(["B1", "B2"])}`
        : `US${year}0${serial}A1`;
    case "EP":
      return rng.chance(0.55)
        ? `EP${rng.int(2_000_000, 4_650_000)}A1`
        : `EP${rng.int(2_000_000, 3_950_000)}B1`;
    case "CN":
      return rng.chance(0.6)
        ? `CN${rng.int(105_000_000, 120_900_000)}A`
        : `CN${rng.int(105_000_000, 115_000_000)}B`;
    case "JP":
      return `JP${year}${serial}A`;
    case "WO":
      return `WO${year}${serial}A1`;
    case "KR":
      return `KR10${rng.int(1_000_000, 2_850_000)}${rng.pick(["B1", "A"])}`;
    case "DE":
      return `DE10${year}${serial}A1`;
    default:
      return `${country}${rng.digits(7)}A1`;
  }
}

const DESIGN_OFFICES = ["US", "US", "CN", "JP"] as const;

/** A design publication of one of `countries` that has designs (US, CN, JP); null when none of them. */
export function knownDesignNumber(rng: Rng, countries: readonly string[] = []): string | null {
  const pool = DESIGN_OFFICES.filter((c) => countries.length === 0 || countries.includes(c));
  if (pool.length === 0) return null;
  for (;;) {
    const office = rng.pick(pool);
    const pn =
      office === "US"
        ? `USD${rng.int(750_000, 1_080_000)}S`
        : office === "CN"
          ? `CN${rng.int(303_000_000, 309_400_000)}S`
          : `JP${rng.int(1_500_000, 1_800_000)}S`;
    if (isKnownPublicationNumber(pn)) return pn;
  }
}

/** A publication number the identifier operations know, in one of `countries` (any office when empty). */
export function knownPublicationNumber(rng: Rng, countries: readonly string[] = []): string {
  const pool = countries.length > 0 ? countries : PATENT_COUNTRIES;
  for (;;) {
    const pn = candidate(rng, rng.pick(pool));
    if (isKnownPublicationNumber(pn)) return pn;
  }
}

/**
 * Granted publications have a B kind (or the plain B of CN), designs an S (registered designs);
 * A kinds are applications, and a WO publication (an international application) is never a grant.
 */
export function isGrant(pn: string): boolean {
  return !pn.startsWith("WO") && /(B\d?|S\d?)$/.test(pn);
}
