import { z } from "zod";
import {
  audienceRequest,
  reportDataSchema,
  reportDownloadDataSchema,
  reportDownloadRequest,
  reportStatusRequest,
  searchImpressionShareRequest,
} from "./advertising.js";
import {
  copyrightDetectionDataSchema,
  copyrightDetectionRequest,
  designPatentDetectionDataSchema,
  designPatentDetectionRequest,
  policyPartsSearchDataSchema,
  policyPartsSearchRequest,
  troDetectionDataSchema,
  troDetectionRequest,
} from "./ip-risk.js";
import { marketplaceSearchDataSchema, marketplaceSearchRequest } from "./marketplace.js";
import {
  type PatentIdentifierSlug,
  patentIdentifierData,
  patentIdentifierOperations,
} from "./patent-identifier.js";
import { patentSearchDataSchema, patentSearchRequest } from "./patent-search.js";

export const CATALOG_VERSION = "2026-08-28-public-catalog-v1";
export const TOOL_LIST_VERSION = "1.0.0";
export const API_PREFIX = "/api/skill-api/v1";
export const CATALOG_SIZE = 172;

export type Family = "advertising" | "marketplace" | "patent-search" | "patent-identifier" | "ip-risk";
export type ReportRole = "create" | "status" | "download";

/** How a call is priced when no price file says otherwise: per call, or per identifier in the batch. */
export type PriceUnit = { perCall: number } | { perItem: number };

export interface Operation {
  slug: string;
  tool: string;
  title: string;
  description: string;
  family: Family;
  tag: string;
  request: z.ZodType<Record<string, unknown>, Record<string, unknown>>;
  data: z.ZodType<Record<string, unknown>>;
  /** Where the records of `data` are, when it has a list of them. */
  recordsPath?: string;
  reportRole?: ReportRole;
  defaultPrice: PriceUnit;
}

export const toolName = (slug: string) => `svc_${slug.replaceAll("-", "_")}`;
export const operationPath = (slug: string) => `${API_PREFIX}/skills/${slug}/run`;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

type Def = Omit<Operation, "tool">;
const op = (def: Def): Operation => ({ ...def, tool: toolName(def.slug) });

const advertising = (slug: string, title: string, description: string, rest: Partial<Def>): Operation =>
  op({
    slug,
    title,
    description,
    family: "advertising",
    tag: "advertising",
    request: reportStatusRequest,
    data: reportDataSchema,
    defaultPrice: { perCall: 1 },
    ...rest,
  });

const ipRisk = (
  slug: string,
  title: string,
  description: string,
  request: Operation["request"],
  data: Operation["data"],
  recordsPath: string,
) =>
  op({
    slug,
    title,
    description,
    family: "ip-risk",
    tag: "patent and IP risk",
    request,
    data,
    recordsPath,
    defaultPrice: { perCall: 5 },
  });

const operations: Operation[] = [
  advertising(
    "marketplace-ads-sp-search-impression-share-report",
    "Sponsored products search impression share report",
    "Creates an asynchronous search impression share report; poll its status by reportId.",
    { request: searchImpressionShareRequest, reportRole: "create", defaultPrice: { perCall: 10 } },
  ),
  advertising(
    "marketplace-ads-sp-audience-report",
    "Sponsored products audience report",
    "Creates an asynchronous audience report; poll its status by reportId.",
    { request: audienceRequest, reportRole: "create", defaultPrice: { perCall: 10 } },
  ),
  advertising(
    "marketplace-ads-sp-insights-report-status",
    "Sponsored products insights report status",
    "Returns a report's status and, once ready, its completed parts with a documentToken each.",
    { request: reportStatusRequest, reportRole: "status" },
  ),
  advertising(
    "marketplace-ads-sp-insights-report-download",
    "Sponsored products insights report download",
    "Downloads one completed report part as UTF-8 CSV text.",
    { request: reportDownloadRequest, data: reportDownloadDataSchema, reportRole: "download" },
  ),
  op({
    slug: "marketplace-search",
    title: "Marketplace product search",
    description: "Searches marketplace products for a keyword, one result page per call.",
    family: "marketplace",
    tag: "marketplace search intelligence",
    request: marketplaceSearchRequest,
    data: marketplaceSearchDataSchema,
    recordsPath: "products",
    defaultPrice: { perCall: 1 },
  }),
  op({
    slug: "websearch-patent-search",
    title: "Patent search",
    description: "Searches patents by query, with date, status, type and assignee filters; paged.",
    family: "patent-search",
    tag: "patent intelligence",
    request: patentSearchRequest,
    data: patentSearchDataSchema,
    recordsPath: "results",
    defaultPrice: { perCall: 1 },
  }),
  ...(
    Object.entries(patentIdentifierOperations) as [
      PatentIdentifierSlug,
      (typeof patentIdentifierOperations)[PatentIdentifierSlug],
    ][]
  ).map(([slug, def]) =>
    op({
      slug,
      title: def.title,
      description: `${def.title} for up to 100 patents per call (patentId or patentNumber, comma-separated).`,
      family: "patent-identifier",
      tag: "patent intelligence",
      request: def.request,
      data: patentIdentifierData(def.record, "extraData" in def ? def.extraData : {}),
      recordsPath: "data",
      defaultPrice: { perItem: 1 },
    }),
  ),
  ipRisk(
    "vendora-product-tro-detection",
    "Product TRO risk detection",
    "Checks a product image (and optional text) for temporary-restraining-order litigation risk.",
    troDetectionRequest,
    troDetectionDataSchema,
    "results",
  ),
  ipRisk(
    "vendorb-copyright-detection",
    "Image copyright detection",
    "Finds copyrighted images similar to a product image.",
    copyrightDetectionRequest,
    copyrightDetectionDataSchema,
    "data",
  ),
  ipRisk(
    "vendorb-detection-patent-design",
    "Design patent detection",
    "Finds design patents similar to a product image, by region and status.",
    designPatentDetectionRequest,
    designPatentDetectionDataSchema,
    "data",
  ),
  ipRisk(
    "vendorb-gun-parts-search",
    "Policy-violating parts search",
    "Compares a product image against a database of policy-violating items.",
    policyPartsSearchRequest,
    policyPartsSearchDataSchema,
    "data",
  ),
];

/** The 23 documented operations, by slug. */
export const catalog: ReadonlyMap<string, Operation> = new Map(operations.map((o) => [o.slug, o]));

export function getOperation(slug: string): Operation | undefined {
  return catalog.get(slug);
}

/** Any other slug of the 172-operation catalog: a JSON object body, a loose `data`. */
export const genericRequest = z.record(z.string(), z.unknown());
export const genericData = z.record(z.string(), z.unknown());
