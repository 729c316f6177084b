import type { Warehouse } from "../../connectors/warehouse/open.js";
import { listTables } from "../../connectors/warehouse/tables.js";
import { ValidationError } from "../../core/errors.js";
import { type Ceiling, warehouseCeilings } from "../../store/budget.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";
import { type PriceTable, pricesEstimated, unboundBy } from "../define/prices.js";

/** Every operation a pipeline may call: its skill, and a report's status and download operations. */
function slugsOf(p: LoadedPipeline): string[] {
  return [p.skill, ...(p.report ? [p.report.status, p.report.download] : [])];
}

/** The warehouse's daily and monthly budgets; a warehouse not yet migrated has set none. */
async function budgetsOf(w: Warehouse): Promise<Ceiling[]> {
  const tables = await listTables(w);
  return tables.includes("skillsync_budget_settings") ? warehouseCeilings(w) : [];
}

/** Credits of these pipelines are estimates: some operation they call is not priced by a price file. */
export function creditsEstimated(pipelines: LoadedPipeline[], prices: PriceTable): boolean {
  return pricesEstimated(prices, pipelines.flatMap(slugsOf));
}

/**
 * Budget figures are estimates unless every price in force is the user's: the budgets add up what
 * every run reserved, and which prices past runs used is not kept per call (docs/pricing.md).
 */
export function budgetEstimated(prices: PriceTable, pipelines?: LoadedPipeline[]): boolean {
  return pipelines ? creditsEstimated(pipelines, prices) : pricesEstimated(prices, prices.keys());
}

/** How the run's credits are priced: estimates or the user's prices, and what a ceiling cannot bind. */
export interface RunPricing {
  /** Some operation of the run is priced by the catalog's guess (or not at all), not a price file. */
  creditsEstimated: boolean;
  /** Under `allowUnpriced`: each operation a ceiling of the run does not bind, and the ceilings. */
  warnings: string[];
}

export interface PricingOptions {
  pipelines: LoadedPipeline[];
  prices: PriceTable;
  maxCredits?: number | undefined;
  /** Ceilings besides `maxCredits`, the pipelines' own and the warehouse's (an MCP server's total). */
  ceilings?: Ceiling[] | undefined;
  /** `--allow-unpriced`: run anyway, with a warning, when a ceiling cannot bind an operation. */
  allowUnpriced?: boolean | undefined;
}

/**
 * Checks, before a run makes its row or any call, that each of its ceilings can bind: a ceiling
 * over an operation priced 0 reserves nothing for it, and over an unpriced one reserves a guess,
 * so calls the service bills would pass it silently. Such a run is refused (exit 2) unless
 * `allowUnpriced`, which runs it and says which operations the ceilings do not bind.
 *
 * @example await checkRunPricing(w, { pipelines, prices, maxCredits: 2 });
 * // throws: patent-claims is priced 0 by the price file: --max-credits 2 cannot bind on it; …
 */
export async function checkRunPricing(w: Warehouse, o: PricingOptions): Promise<RunPricing> {
  const estimated = creditsEstimated(o.pipelines, o.prices);
  const shared = [
    ...(o.maxCredits === undefined ? [] : [`--max-credits ${o.maxCredits}`]),
    ...[...(o.ceilings ?? []), ...(await budgetsOf(w))]
      .filter((c) => c.limit !== null)
      .map((c) => `${c.label} of ${c.limit}`),
  ];
  const found = o.pipelines.flatMap((p) => {
    const names = [...shared, ...(p.maxCredits ? [`maxCredits ${p.maxCredits} of pipeline ${p.name}`] : [])];
    return names.length ? unboundBy(o.prices, slugsOf(p)).map((u) => ({ ...u, names })) : [];
  });
  if (!found.length) return { creditsEstimated: estimated, warnings: [] };
  if (!o.allowUnpriced)
    throw new ValidationError(
      "prices under a credit ceiling",
      found.map((u) => ({
        path: [],
        message: `${u.slug} is ${u.why}: ${u.names.join(", ")} cannot bind on it; add a price for ${u.slug} to your price file (--prices or SKILLSYNC_PRICES), or pass --allow-unpriced`,
      })),
    );
  return {
    creditsEstimated: estimated,
    warnings: found.map(
      (u) => `--allow-unpriced: ${u.slug} is ${u.why}: ${u.names.join(", ")} does not bind on its calls`,
    ),
  };
}
