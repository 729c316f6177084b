import { canonicalJson } from "../core/hash.js";
import {
  catalog,
  type Family,
  genericData,
  genericRequest,
  type Operation,
  PROBE_SLUG,
  SLUG_PATTERN,
  toolName,
} from "../schema/catalog.js";
import { isoDay, randomDay } from "./generate/dates.js";
import { hashSeed, mixSeed, Rng } from "./random.js";

/**
 * Catalog slugs the contract does not detail (it documents 23 of 172 operations). The emulator
 * serves them only when asked (`genericSlugs: true` for any slug, or a list), so a test that
 * names a typo still sees the 404 a real gateway gives an unknown operation.
 */
export type GenericSlugs = boolean | ReadonlySet<string>;

const PAGE_SIZE = 10;
const WORDS = ["wireless", "organic", "portable", "vintage", "for kids", "bulk", "mini", "pro", "2-pack"];
const INTENTS = ["informational", "commercial", "transactional", "navigational"] as const;

function familyOf(slug: string): Family {
  if (slug.startsWith("marketplace-ads-")) return "advertising";
  if (slug.includes("patent")) return "patent-search";
  if (/^vendor[ab]-/.test(slug)) return "ip-risk";
  return "marketplace";
}

/**
 * The operation the emulator plays for an undocumented slug: a JSON-object request (any members)
 * and a loose `data`, one credit per call. Undefined for documented slugs and slugs not served.
 *
 * @example genericOperation("marketplace-keyword-research", true)?.tool // "svc_marketplace_keyword_research"
 */
export function genericOperation(slug: string, serve: GenericSlugs): Operation | undefined {
  if (catalog.has(slug) || slug === PROBE_SLUG || !SLUG_PATTERN.test(slug)) return undefined;
  if (serve === false || (serve !== true && !serve.has(slug))) return undefined;
  return {
    slug,
    tool: toolName(slug),
    title: slug,
    description: "An operation of the catalog whose shapes the contract does not detail (emulated).",
    family: familyOf(slug),
    tag: "generic",
    request: genericRequest,
    data: genericData,
    recordsPath: "data",
    defaultPrice: { perCall: 1 },
  };
}

/**
 * What the 404 of a slug the emulator does not serve adds: how to have it answered, when it could
 * be (a slug in the catalog's form; the doctor's probe slug is never answered).
 *
 * @example notServedHint("marketplace-keyword-research") // "; to answer it with generic data, start the emulator with --generic-slugs …"
 */
export function notServedHint(slug: string): string {
  if (slug === PROBE_SLUG || !SLUG_PATTERN.test(slug)) return "";
  return `; to answer it with generic data, start the emulator with --generic-slugs ${slug} (or --generic-slugs alone, for every slug)`;
}

export const isGenericOperation = (op: Operation): boolean => !catalog.has(op.slug);

const truthy = (v: unknown) => v === true || v === 1 || v === "1" || v === "true";

/**
 * Deterministic loose `data` for a generic slug: `{ total, page, pageSize, pageItemCount, subject,
 * data: [records] }`, paged by the request member `page` (10 records a page). Records mix every
 * JSON type (integers, numbers, booleans, dates, text, arrays, objects); with a truthy `detail`
 * member they carry three more members (`updatedAt`, `seasonality`, `intent`), so tests can see a
 * table gain columns when the data gains members.
 *
 * @example genericSlugData("marketplace-keyword-research", { keyword: "tea" }).data // 10 records
 */
export function genericSlugData(slug: string, body: Record<string, unknown>): Record<string, unknown> {
  const { page: rawPage, detail, ...rest } = body;
  const seed = hashSeed("generic", slug, canonicalJson(rest));
  const subject = [rest["keyword"], rest["q"], rest["query"], ...Object.values(rest)].find(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  );
  const total = 5 + (seed % 21);
  const page = Number.isInteger(Number(rawPage)) && Number(rawPage) >= 1 ? Number(rawPage) : 1;
  const start = (page - 1) * PAGE_SIZE;
  const records: Record<string, unknown>[] = [];
  for (let i = start; i < Math.min(total, start + PAGE_SIZE); i++) {
    const rng = new Rng(mixSeed(seed, i));
    const record: Record<string, unknown> = {
      rank: i + 1,
      keyword: `${subject ?? slug} ${rng.pick(WORDS)} ${i + 1}`,
      searchVolume: rng.int(50, 250_000),
      cpc: rng.decimal(0.05, 4.5, 2),
      competition: rng.pick(["low", "medium", "high"]),
      branded: rng.chance(0.3),
      firstSeen: isoDay(randomDay(rng, 2019, 2025)),
      monthlyVolumes: [1, 2, 3].map((m) => ({ month: `2025-0${m}`, volume: rng.int(10, 90_000) })),
      source: { provider: "emulator", slug },
    };
    if (truthy(detail)) {
      record["updatedAt"] = new Date(Date.UTC(2025, 5, 1, rng.int(0, 23), rng.int(0, 59))).toISOString();
      record["seasonality"] = rng.decimal(0, 1, 3);
      record["intent"] = rng.pick(INTENTS);
    }
    records.push(record);
  }
  return {
    total,
    page,
    pageSize: PAGE_SIZE,
    pageItemCount: records.length,
    subject: subject ?? null,
    data: records,
  };
}
