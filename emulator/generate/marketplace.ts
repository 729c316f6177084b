import { DEFAULT_EMULATOR_DAY } from "../clock.js";
import { hashSeed, mixSeed, Rng, smoothNoise } from "../random.js";
import { isoDay, randomDay } from "./dates.js";
import { PRODUCT_ADJECTIVES, PRODUCT_BRANDS, PRODUCT_TITLES } from "./vocabulary.js";

const MARKETPLACE_PAGE_SIZE = 20;

const COLUMNS = [
  "position",
  "asin",
  "title",
  "price",
  "extractedPrice",
  "oldPrice",
  "extractedOldPrice",
  "rating",
  "ratings",
  "monthlySalesUnits",
  "sponsored",
  "availableDate",
];

/** Share of a keyword's results drawn from the pools of its words, so keywords that share a word share products. */
const SHARED_SHARE = 0.3;
const POOL_SIZE = 12;
/** Ranks wander this many places either way (products cross page boundaries), over knots 5 days apart. */
const RANK_SWING = 8;
/** Log-price swing of volatile products (a tenth off within a week is common) and of steady ones. */
const VOLATILE = 0.22;
const STEADY = 0.04;
const STOP_WORDS = new Set(["and", "for", "the", "with", "von", "und", "les", "des"]);

/** What a product is, whatever the day: its price moves around `basePrice`, its rank around `baseIndex`. */
interface Listing {
  asin: string;
  title: string;
  pack: number;
  basePrice: number | null;
  listPrice: number | null;
  showUnit: boolean;
  rating: number | null;
  ratings: number | null;
  monthlySalesUnits: number | null;
  sponsored: boolean;
  snapEbtEligible: boolean;
  imageUrl: string;
  availableDate: string;
  priceSeed: number;
  volatility: number;
}

/**
 * One result page for a keyword at a day (default: the emulator's default date). The keyword fixes
 * which products it lists (its own and, for ~30 %, the most popular products of each of its words,
 * shared with every keyword holding that word); the day moves their ranks and prices. Page 1 and
 * about half the other pages show a sponsored copy of an organic product of the same page.
 *
 * @example marketplaceSearch({ keyword: "desk lamp", page: 1 }).products.length // 20
 */
export function marketplaceSearch(
  body: { keyword: string; page?: number | undefined },
  day = DEFAULT_EMULATOR_DAY,
) {
  const keyword = body.keyword;
  const page = body.page ?? 1;
  const seed = hashSeed("marketplace-search", keyword);
  const ranked = rankedAt(keyword, seed, day);
  const total = ranked.length;
  const start = (page - 1) * MARKETPLACE_PAGE_SIZE;
  const count = Math.max(0, Math.min(MARKETPLACE_PAGE_SIZE, total - start));
  const products = ranked.slice(start, start + count).map((l) => productAt(l, keyword, day));
  addSponsoredCopy(products, new Rng(mixSeed(mixSeed(seed, page), day)), page);
  products.forEach((p, i) => {
    p["position"] = i + 1;
  });
  return {
    page,
    pageSize: MARKETPLACE_PAGE_SIZE,
    totalPage: Math.ceil(total / MARKETPLACE_PAGE_SIZE),
    pageItemCount: count,
    total,
    keyword,
    columns: COLUMNS,
    costToken: 1,
    products,
  };
}

function addSponsoredCopy(products: Record<string, unknown>[], rng: Rng, page: number): void {
  const count = products.length;
  if (count < 5 || !(page === 1 || rng.chance(0.5))) return;
  const target = rng.int(2, count - 1);
  const slot = rng.int(0, 1);
  const organic = { ...products[target], sponsored: false };
  products[target] = organic;
  products[slot] = { ...organic, sponsored: true };
}

/** The keyword's listings in their order of the day: base order plus a smooth per-product wander. */
function rankedAt(keyword: string, seed: number, day: number): Listing[] {
  return listingsOf(keyword, seed)
    .map((l, i) => ({ l, score: i + RANK_SWING * smoothNoise(mixSeed(seed, l.priceSeed), day, 5) }))
    .sort((a, b) => a.score - b.score)
    .map((x) => x.l);
}

const listingCache = new Map<string, Listing[]>();

/** The products a keyword lists, in base order (cached: every page of every day asks again). */
function listingsOf(keyword: string, seed: number): Listing[] {
  const hit = listingCache.get(keyword);
  if (hit) return hit;
  const total = 25 + (seed % 96);
  const words = keywordWords(keyword);
  const shared = sharedListings(words, words.length > 0 ? Math.floor(total * SHARED_SHARE) : 0);
  const own = ownListings(keyword, seed, total - shared.length, new Set(shared.map((l) => l.asin)));
  // Shared products are spread evenly through the list; the keyword's own fill the rest.
  const list: Listing[] = [];
  for (let i = 0, s = 0, o = 0; i < total; i++) {
    const sharedHere = s < shared.length && Math.floor(((s + 0.5) * total) / shared.length) === i;
    list.push((sharedHere ? shared[s++] : own[o++]) as Listing);
  }
  if (listingCache.size >= 5_000) listingCache.clear();
  listingCache.set(keyword, list);
  return list;
}

/** The keyword's own products, from (keyword, n) as before there were shared ones, skipping asins already listed. */
function ownListings(keyword: string, seed: number, count: number, seen: Set<string>): Listing[] {
  const out: Listing[] = [];
  for (let n = 0; out.length < count; n++) {
    const l = listing(new Rng(mixSeed(seed, n + 1_000_003)), keyword);
    if (seen.has(l.asin)) continue;
    seen.add(l.asin);
    out.push(l);
  }
  return out;
}

/** The distinct words of a keyword that carry meaning ("led desk lamp" → led, desk, lamp). */
function keywordWords(keyword: string): string[] {
  const words = keyword
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
  return [...new Set(words)].slice(0, 4);
}

/** `count` products taken in turn from the top of each word's pool (a word's best sellers come first). */
function sharedListings(words: string[], count: number): Listing[] {
  const out = new Map<string, Listing>();
  for (let j = 0; j < POOL_SIZE && out.size < count; j++) {
    for (const word of words) {
      const l = listing(new Rng(hashSeed("marketplace-pool", word, j)), word);
      if (out.size < count && !out.has(l.asin)) out.set(l.asin, l);
    }
  }
  return [...out.values()];
}

function listing(rng: Rng, subject: string): Listing {
  const asin = `B0${rng.upperAlnum(8)}`;
  const pack = rng.int(1, 12);
  const title = rng.pick(PRODUCT_TITLES)(
    rng.pick(PRODUCT_BRANDS),
    rng.pick(PRODUCT_ADJECTIVES),
    subject,
    pack,
  );
  const hasPrice = !rng.chance(0.12);
  const basePrice = hasPrice ? rng.int(3, 199) + 0.99 : null;
  const discounted = basePrice !== null && rng.chance(0.3);
  const listPrice = discounted ? Math.floor((basePrice as number) * rng.decimal(1.1, 1.6)) + 0.99 : null;
  const rated = !rng.chance(0.1);
  const hasSales = !rng.chance(0.2);
  const showUnit = basePrice !== null && pack > 1 && rng.chance(0.4);
  const priceSeed = hashSeed("price-walk", asin);
  return {
    asin,
    title,
    pack,
    basePrice,
    listPrice,
    showUnit,
    rating: rated ? rng.decimal(3, 5, 1) : null,
    ratings: rated ? rng.int(1, 25_000) : null,
    monthlySalesUnits: hasSales ? rng.int(1, 400) * 50 : null,
    sponsored: rng.chance(0.08),
    snapEbtEligible: rng.chance(0.1),
    imageUrl: `https://images.marketplace.example/I/${rng.upperAlnum(11)}._AC_UL320_.jpg`,
    availableDate: isoDay(randomDay(rng, 2015, 2025)),
    priceSeed,
    volatility: priceSeed % 10 < 3 ? VOLATILE : STEADY,
  };
}

/** The price of the day: a smooth walk around the base price, seeded by the asin alone (the same under every keyword). */
function priceAt(l: Listing, day: number): number | null {
  if (l.basePrice === null) return null;
  const factor = Math.exp(l.volatility * smoothNoise(l.priceSeed, day, 7));
  return Math.max(1, Math.floor(l.basePrice * factor)) + 0.99;
}

function productAt(l: Listing, keyword: string, day: number): Record<string, unknown> {
  const price = priceAt(l, day);
  // The crossed-out list price shows only while the product sells below it.
  const oldPrice = price !== null && l.listPrice !== null && l.listPrice > price ? l.listPrice : null;
  return {
    position: 0,
    asin: l.asin,
    title: l.title,
    price: price === null ? null : `$${price.toFixed(2)}`,
    extractedPrice: price,
    oldPrice: oldPrice === null ? null : `$${oldPrice.toFixed(2)}`,
    extractedOldPrice: oldPrice,
    extractedPriceUnit: price !== null && l.showUnit ? `$${(price / l.pack).toFixed(2)}/Count` : null,
    rating: l.rating,
    ratings: l.ratings,
    monthlySalesUnits: l.monthlySalesUnits,
    sponsored: l.sponsored,
    snapEbtEligible: l.snapEbtEligible,
    imageUrl: l.imageUrl,
    asinUrl: `https://www.marketplace.example/dp/${l.asin}`,
    availableDate: l.availableDate,
    keyword,
  };
}
