import { identifierKey } from "../../schema/patent-identifier.js";
import { hashSeed, type Rng } from "../random.js";

/**
 * Publication numbers: their forms per office, and which ones the emulator "knows". A number is
 * unknown when it does not look like a publication number or when its hash says so (about one in
 * ten), so batches come back with fewer records than asked, as they do from the real service.
 */

const LOOKS_LIKE = /^[A-Z]{2}\d{4,13}[A-Z]\d?$/;

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

function candidate(rng: Rng, country: string): string {
  const year = rng.int(2012, 2024);
  switch (country) {
    case "US":
      return rng.chance(0.6)
        ? `US${rng.int(10, 12)}${rng.digits(6)}${rng.pick(["B1", "B2"])}`
        : `US${year}0${rng.digits(6)}A1`;
    case "EP":
      return `EP${rng.int(2, 4)}${rng.digits(6)}${rng.pick(["A1", "B1"])}`;
    case "CN":
      return `CN${rng.int(105, 118)}${rng.digits(6)}${rng.pick(["A", "B"])}`;
    case "JP":
      return `JP${year}${rng.digits(6)}A`;
    case "WO":
      return `WO${year}${rng.digits(6)}A1`;
    case "KR":
      return `KR10${rng.digits(7)}${rng.pick(["B1", "A"])}`;
    case "DE":
      return `DE10${year}${rng.digits(6)}A1`;
    default:
      return `${country}${rng.digits(7)}A1`;
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

/** Granted publications have a B kind (or the plain B of CN); A kinds are applications. */
export function isGrant(pn: string): boolean {
  return /B\d?$/.test(pn);
}
