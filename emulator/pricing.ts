import type { Operation } from "../schema/catalog.js";
import { requestedIdentifiers } from "../schema/patent-identifier.js";

export type PriceOverride = number | { perItem: number };

/**
 * Credits a call costs: the operation's default price unless overridden. Per-item prices count
 * every identifier asked for (duplicates and unknown ones included): the service bills the ask.
 *
 * @example priceOf(getOperation("patent-claims")!, { patentNumber: "US1,US2" }, {}) // 2
 */
export function priceOf(
  op: Operation,
  body: Record<string, unknown>,
  overrides: Record<string, PriceOverride>,
): number {
  const override = overrides[op.slug];
  const unit =
    override === undefined
      ? op.defaultPrice
      : typeof override === "number"
        ? { perCall: override }
        : override;
  if ("perCall" in unit) return unit.perCall;
  const items = op.family === "patent-identifier" ? requestedIdentifiers(body).length : 1;
  return unit.perItem * items;
}
