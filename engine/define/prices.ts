import { parse } from "yaml";
import { z } from "zod";
import { READ_LIMITS, readBoundedText } from "../../core/bounded-read.js";
import { fromZodIssues, ValidationError } from "../../core/errors.js";
import { catalog, type PriceUnit, SLUG_PATTERN } from "../../schema/catalog.js";
import { requestedIdentifiers } from "../../schema/patent-identifier.js";
import { parseRate } from "../../schema/rate.js";

const rateLimit = z
  .union([z.string(), z.number()])
  .transform((v, ctx) => {
    const rate = parseRate(v);
    if (rate === undefined)
      ctx.addIssue({ code: "custom", message: 'must be a rate such as "20/s" or "600/m"' });
    return rate ?? 0;
  })
  .optional();
const priceEntry = z.union([
  z.number().min(0),
  z.strictObject({ perCall: z.number().min(0), rateLimit }),
  z.strictObject({ perItem: z.number().min(0), rateLimit }),
]);
const priceFileSchema = z.record(
  z.string().regex(SLUG_PATTERN, { message: "must be an operation slug" }),
  priceEntry,
);

/**
 * Where a price came from: `file`, the user's price file (the account's own prices); `catalog`,
 * the built-in guess (the API publishes no prices); `default`, neither: the slug is unpriced.
 */
type PriceSource = "file" | "catalog" | "default";

/**
 * A skill's price, the rate limit it is known to have (calls per second), if any, and where the
 * price came from. A price without `source` was handed in by the caller (a table built in code),
 * which is as good as a price file.
 */
export type Price = PriceUnit & { rateLimit?: number | undefined; source?: PriceSource | undefined };
export type PriceTable = ReadonlyMap<string, Price>;

/** Credits for any slug the catalog does not price: one per call. */
export const DEFAULT_PRICE: PriceUnit = { perCall: 1 };

/**
 * The price table: the catalog's defaults, overridden by a `--prices` YAML file
 * (`slug: credits-per-call` or `slug: { perItem: credits-per-identifier }`), with a skill's known
 * rate limit where one is declared (`slug: { perCall: 1, rateLimit: 20/s }`: its calls are paced
 * below it, docs/rate-limits.md).
 *
 * @example loadPrices("prices.yaml").get("patent-claims") // { perItem: 0.5 }
 */
export function loadPrices(file?: string): PriceTable {
  const table = new Map<string, Price>(
    [...catalog.values()].map((op) => [op.slug, { ...op.defaultPrice, source: "catalog" }]),
  );
  if (!file) return table;
  let raw: unknown;
  try {
    raw = parse(
      readBoundedText(file, {
        maxBytes: READ_LIMITS.yamlFileBytes,
        what: `price file ${file}`,
        instead: "a price file has a line or two per operation",
      }),
    );
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw new ValidationError(`price file ${file}`, [
      { path: [], message: err instanceof Error ? err.message.split("\n")[0]! : String(err) },
    ]);
  }
  const parsed = priceFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    // zod says only "Invalid key in record" for a key that is not a slug: say what it must be.
    const issues = fromZodIssues(parsed.error.issues).map((i) =>
      i.code === "invalid_key"
        ? { ...i, message: "is not an operation slug (lowercase words joined by hyphens)" }
        : i,
    );
    throw new ValidationError(`price file ${file}`, issues);
  }
  for (const [slug, entry] of Object.entries(parsed.data)) {
    table.set(slug, { ...(typeof entry === "number" ? { perCall: entry } : entry), source: "file" });
  }
  return table;
}

/**
 * The items the service bills a request for, counted in the body that will be sent (as the API
 * and the emulator count them): every identifier of a patent-identifier operation's list, after
 * `patentId`'s precedence over `patentNumber`, duplicates included; 1 for any other operation.
 *
 * @example billedItems("patent-claims", { patentNumber: "US1,US2" }) // 2
 */
export function billedItems(slug: string, body: Record<string, unknown>): number {
  if (catalog.get(slug)?.family !== "patent-identifier") return 1;
  return Math.max(1, requestedIdentifiers(body).length);
}

/** Estimated credits of one call: per call, or per item billed (`billedItems` of the body sent). */
export function estimateCredits(prices: PriceTable, slug: string, items: number): number {
  const p = prices.get(slug) ?? DEFAULT_PRICE;
  return "perItem" in p ? p.perItem * Math.max(1, items) : p.perCall;
}

/** A slug's price and where it came from: the table's, else the default price, unpriced. */
function priceOf(prices: PriceTable, slug: string): Price & { source: PriceSource } {
  const p = prices.get(slug);
  return p ? { ...p, source: p.source ?? "file" } : { ...DEFAULT_PRICE, source: "default" };
}

/** Credits priced from these slugs are estimates unless every one is priced by the user's file. */
export function pricesEstimated(prices: PriceTable, slugs: Iterable<string>): boolean {
  return [...slugs].some((slug) => priceOf(prices, slug).source !== "file");
}

/** An operation a ceiling cannot bind, and why: priced 0 (nothing is reserved) or unpriced (a guess). */
interface Unbound {
  slug: string;
  why: string;
}

/** The slugs a ceiling cannot bind: priced 0 by the file or catalog, or in neither (unpriced). */
export function unboundBy(prices: PriceTable, slugs: Iterable<string>): Unbound[] {
  return [...new Set(slugs)].flatMap((slug) => {
    const p = priceOf(prices, slug);
    if (p.source === "default")
      return [
        { slug, why: "unpriced (in neither the price file nor the catalog: 1 credit a call is a guess)" },
      ];
    const credits = "perItem" in p ? p.perItem : p.perCall;
    if (credits > 0) return [];
    return [{ slug, why: `priced 0 by the ${p.source === "file" ? "price file" : "catalog"}` }];
  });
}
