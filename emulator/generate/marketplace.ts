import { hashSeed, mixSeed, Rng } from "../random.js";
import { isoDay, randomDay } from "./dates.js";
import { PRODUCT_ADJECTIVES, PRODUCT_BRANDS, PRODUCT_TITLES } from "./vocabulary.js";

export const MARKETPLACE_PAGE_SIZE = 20;

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

/** Products a keyword has in all (25–120), so its pagination ends. */
export function marketplaceTotal(keyword: string): number {
  return 25 + (hashSeed("marketplace-search", keyword) % 96);
}

/**
 * One result page for a keyword. Products come from (keyword, rank), so a product keeps its
 * attributes whichever page shows it. Page 1 and about half the other pages show a sponsored
 * copy of an organic product of the same page in one of the first two slots, as marketplaces do.
 *
 * @example marketplaceSearch({ keyword: "desk lamp", page: 1 }).products.length // 20
 */
export function marketplaceSearch(body: { keyword: string; page?: number | undefined }) {
  const keyword = body.keyword;
  const page = body.page ?? 1;
  const seed = hashSeed("marketplace-search", keyword);
  const total = 25 + (seed % 96);
  const start = (page - 1) * MARKETPLACE_PAGE_SIZE;
  const count = Math.max(0, Math.min(MARKETPLACE_PAGE_SIZE, total - start));
  const products: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) products.push(product(seed, start + i, keyword));
  const pageRng = new Rng(mixSeed(seed, page));
  if (count >= 5 && (page === 1 || pageRng.chance(0.5))) {
    const target = pageRng.int(2, count - 1);
    const slot = pageRng.int(0, 1);
    const organic = { ...products[target], sponsored: false };
    products[target] = organic;
    products[slot] = { ...organic, sponsored: true };
  }
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

function product(keywordSeed: number, rank: number, keyword: string): Record<string, unknown> {
  const rng = new Rng(mixSeed(keywordSeed, rank + 1_000_003));
  const asin = `B0${rng.upperAlnum(8)}`;
  const pack = rng.int(1, 12);
  const title = rng.pick(PRODUCT_TITLES)(
    rng.pick(PRODUCT_BRANDS),
    rng.pick(PRODUCT_ADJECTIVES),
    keyword,
    pack,
  );
  const hasPrice = !rng.chance(0.12);
  const extractedPrice = hasPrice ? rng.int(3, 199) + 0.99 : null;
  const discounted = extractedPrice !== null && rng.chance(0.3);
  const extractedOldPrice = discounted
    ? Math.floor((extractedPrice as number) * rng.decimal(1.1, 1.6)) + 0.99
    : null;
  const rated = !rng.chance(0.1);
  const hasSales = !rng.chance(0.2);
  return {
    position: 0,
    asin,
    title,
    price: extractedPrice === null ? null : `$${extractedPrice.toFixed(2)}`,
    extractedPrice,
    oldPrice: extractedOldPrice === null ? null : `$${extractedOldPrice.toFixed(2)}`,
    extractedOldPrice,
    extractedPriceUnit:
      extractedPrice !== null && pack > 1 && rng.chance(0.4)
        ? `$${(extractedPrice / pack).toFixed(2)}/Count`
        : null,
    rating: rated ? rng.decimal(3, 5, 1) : null,
    ratings: rated ? rng.int(1, 25_000) : null,
    monthlySalesUnits: hasSales ? rng.int(1, 400) * 50 : null,
    sponsored: rng.chance(0.08),
    snapEbtEligible: rng.chance(0.1),
    imageUrl: `https://images.marketplace.example/I/${rng.upperAlnum(11)}._AC_UL320_.jpg`,
    asinUrl: `https://www.marketplace.example/dp/${asin}`,
    availableDate: isoDay(randomDay(rng, 2015, 2025)),
    keyword,
  };
}
