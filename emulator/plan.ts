import type { Operation } from "../schema/catalog.js";
import type { PatentIdentifierSlug } from "../schema/patent-identifier.js";
import {
  copyrightDetection,
  designPatentDetection,
  gunPartsSearch,
  troDetection,
} from "./generate/ip-risk.js";
import { marketplaceSearch } from "./generate/marketplace.js";
import { patentIdentifierData } from "./generate/patent-records.js";
import { patentSearch } from "./generate/patent-search.js";
import { genericSlugData, isGenericOperation } from "./generic.js";
import type { Plan, ReportStore } from "./reports.js";

type Body = Record<string, unknown>;
/** The `data` of a validated call at an emulated day (a day number). */
export type Generate = (body: Body, day: number) => Record<string, unknown>;

const IP_RISK: Record<string, (body: Body) => Record<string, unknown>> = {
  "vendora-product-tro-detection": troDetection,
  "vendorb-copyright-detection": copyrightDetection,
  "vendorb-detection-patent-design": designPatentDetection,
  "vendorb-gun-parts-search": gunPartsSearch,
};

/**
 * What answers an operation without state: every one but the advertising reports (which
 * `planCall` leaves to the report store). Undefined when the operation is not emulated.
 */
export function generatorOf(op: Operation): Generate | undefined {
  if (isGenericOperation(op)) return (body) => genericSlugData(op.slug, body);
  switch (op.family) {
    case "advertising":
      return undefined;
    case "marketplace":
      return (body, day) => marketplaceSearch(body as { keyword: string; page?: number }, day);
    case "patent-search":
      return (body, day) => patentSearch(body as Parameters<typeof patentSearch>[0], day);
    case "patent-identifier":
      return (body, day) => patentIdentifierData(op.slug as PatentIdentifierSlug, body, day);
    case "ip-risk": {
      const generate = IP_RISK[op.slug];
      return generate && ((body) => generate(body));
    }
  }
}

/**
 * What a validated call of `op` at emulated `day` will answer; report calls may be refused
 * (unknown report, denied connection).
 */
export function planCall(op: Operation, body: Body, reports: ReportStore, day: number): Plan {
  if (op.family === "advertising" && !isGenericOperation(op)) return reports.plan(op.slug, body);
  const generate = generatorOf(op);
  if (!generate) return { error: { status: 404, msg: `${op.slug} is not emulated` } };
  return { run: () => ({ data: generate(body, day) }) };
}
