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

const IP_RISK: Record<string, (body: Body) => Record<string, unknown>> = {
  "vendora-product-tro-detection": troDetection,
  "vendorb-copyright-detection": copyrightDetection,
  "vendorb-detection-patent-design": designPatentDetection,
  "vendorb-gun-parts-search": gunPartsSearch,
};

/** What a validated call of `op` will answer; report calls may be refused (unknown report, denied connection). */
export function planCall(op: Operation, body: Body, reports: ReportStore): Plan {
  if (isGenericOperation(op)) return { run: () => ({ data: genericSlugData(op.slug, body) }) };
  switch (op.family) {
    case "advertising":
      return reports.plan(op.slug, body);
    case "marketplace":
      return { run: () => ({ data: marketplaceSearch(body as { keyword: string; page?: number }) }) };
    case "patent-search":
      return { run: () => ({ data: patentSearch(body as Parameters<typeof patentSearch>[0]) }) };
    case "patent-identifier":
      return { run: () => ({ data: patentIdentifierData(op.slug as PatentIdentifierSlug, body) }) };
    case "ip-risk": {
      const generate = IP_RISK[op.slug];
      if (!generate) return { error: { status: 404, msg: `${op.slug} is not emulated` } };
      return { run: () => ({ data: generate(body) }) };
    }
  }
}
