import { z } from "zod";
import { dataObject, MAX_TEXT, opt, record } from "./common.js";

/**
 * Contract 4.3 names `keyword` and `page` but not their required-ness or bounds. A search
 * without a keyword cannot mean anything, so `keyword` is required; unknown members are
 * allowed because the contract does not say they are rejected. Its length is not shown either:
 * every text member whose bound the contract gives takes at most 1000 characters (patent search
 * `q`, the IP tools' texts, section 8), so a keyword does too.
 */
export const marketplaceSearchRequest = z.looseObject({
  keyword: z
    .string()
    .min(1, { message: "keyword must not be empty" })
    .max(MAX_TEXT, { message: `keyword must be at most ${MAX_TEXT} characters` }),
  page: z.number().int().min(1, { message: "page must be an integer >= 1" }).optional(),
});

// The contract lists price among the numbers, but marketplaces give display text ("$12.99")
// there and the parsed value in extractedPrice; both forms are accepted so a real page never fails.
const priceLike = opt(z.union([z.number(), z.string()]));

const marketplaceProductSchema = record({
  asin: opt(z.string()),
  price: priceLike,
  extractedPrice: opt(z.number()),
  oldPrice: priceLike,
  extractedOldPrice: opt(z.number()),
  extractedPriceUnit: opt(z.union([z.number(), z.string()])),
  rating: opt(z.number()),
  ratings: opt(z.number()),
  position: opt(z.number()),
  monthlySalesUnits: opt(z.number()),
  sponsored: opt(z.boolean()),
  snapEbtEligible: opt(z.boolean()),
  imageUrl: opt(z.string()),
  asinUrl: opt(z.string()),
  availableDate: opt(z.string()),
  keyword: opt(z.string()),
});

export const marketplaceSearchDataSchema = dataObject({
  keyword: opt(z.string()),
  products: opt(z.array(marketplaceProductSchema)),
});
