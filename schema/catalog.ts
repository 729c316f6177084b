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
type ReportRole = "create" | "status" | "download";

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

/**
 * A slug no operation has (`skillsync doctor`): a POST to it passes the gateway's key check and
 * is then refused as an unknown operation — nothing runs, so nothing is billed.
 */
export const PROBE_SLUG = "skillsync-doctor-probe";
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * An operation as written in the catalog below: its slug is its key there, its tool name follows
 * from the slug. `Req` and `Data` keep the exact schemas, so a call's types are read from here
 * (`DocumentedOperations`, `connectors/skill-api/types.ts`).
 */
type Def<
  Req extends Operation["request"] = Operation["request"],
  Data extends Operation["data"] = Operation["data"],
> = Omit<Operation, "slug" | "tool" | "request" | "data"> & { request: Req; data: Data };

const op = <Req extends Operation["request"], Data extends Operation["data"]>(def: Def<Req, Data>) => def;

// NoInfer: the catalog's `satisfies` would otherwise widen the request or data an operation leaves unset.
const advertising = <
  Req extends Operation["request"] = typeof reportStatusRequest,
  Data extends Operation["data"] = typeof reportDataSchema,
>(
  title: string,
  description: string,
  rest: Partial<Def<Req, Data>>,
): Def<NoInfer<Req>, NoInfer<Data>> =>
  op({
    title,
    description,
    family: "advertising",
    tag: "advertising",
    request: reportStatusRequest,
    data: reportDataSchema,
    defaultPrice: { perCall: 1 },
    ...rest,
  } as Def<Req, Data>);

const ipRisk = <Req extends Operation["request"], Data extends Operation["data"]>(
  title: string,
  description: string,
  request: Req,
  data: Data,
  recordsPath: string,
) =>
  op({
    title,
    description,
    family: "ip-risk",
    tag: "patent and IP risk",
    request,
    data,
    recordsPath,
    defaultPrice: { perCall: 5 },
  });

type PatentOp<S extends PatentIdentifierSlug> = (typeof patentIdentifierOperations)[S];
/** Each patent-identifier operation's `data`, typed with that operation's record. */
type PatentDataSchema<S extends PatentIdentifierSlug> = PatentOp<S>["record"] extends infer R extends
  z.ZodType
  ? ReturnType<typeof patentIdentifierData<R>>
  : never;

const patentIdentifier = Object.fromEntries<Def>(
  (
    Object.entries(patentIdentifierOperations) as [
      PatentIdentifierSlug,
      (typeof patentIdentifierOperations)[PatentIdentifierSlug],
    ][]
  ).map(([slug, def]) => [
    slug,
    op({
      title: def.title,
      description: `${def.title} for up to 100 patents per call (patentId or patentNumber, comma-separated).`,
      family: "patent-identifier",
      tag: "patent intelligence",
      request: def.request,
      data: patentIdentifierData(def.record, "extraData" in def ? def.extraData : {}),
      recordsPath: "data",
      defaultPrice: { perItem: 1 },
    }),
  ]),
) as { [S in PatentIdentifierSlug]: Def<PatentOp<S>["request"], PatentDataSchema<S>> };

/** The documented operations by slug, in the catalog's order. */
const documented = {
  "marketplace-ads-sp-search-impression-share-report": advertising(
    "Sponsored products search impression share report",
    "Creates an asynchronous search impression share report; poll its status by reportId.",
    { request: searchImpressionShareRequest, reportRole: "create", defaultPrice: { perCall: 10 } },
  ),
  "marketplace-ads-sp-audience-report": advertising(
    "Sponsored products audience report",
    "Creates an asynchronous audience report; poll its status by reportId.",
    { request: audienceRequest, reportRole: "create", defaultPrice: { perCall: 10 } },
  ),
  "marketplace-ads-sp-insights-report-status": advertising(
    "Sponsored products insights report status",
    "Returns a report's status and, once ready, its completed parts with a documentToken each.",
    { reportRole: "status" },
  ),
  "marketplace-ads-sp-insights-report-download": advertising(
    "Sponsored products insights report download",
    "Downloads one completed report part as UTF-8 CSV text.",
    { request: reportDownloadRequest, data: reportDownloadDataSchema, reportRole: "download" },
  ),
  "marketplace-search": op({
    title: "Marketplace product search",
    description: "Searches marketplace products for a keyword, one result page per call.",
    family: "marketplace",
    tag: "marketplace search intelligence",
    request: marketplaceSearchRequest,
    data: marketplaceSearchDataSchema,
    recordsPath: "products",
    defaultPrice: { perCall: 1 },
  }),
  "websearch-patent-search": op({
    title: "Patent search",
    description: "Searches patents by query, with date, status, type and assignee filters; paged.",
    family: "patent-search",
    tag: "patent intelligence",
    request: patentSearchRequest,
    data: patentSearchDataSchema,
    recordsPath: "results",
    defaultPrice: { perCall: 1 },
  }),
  ...patentIdentifier,
  "vendora-product-tro-detection": ipRisk(
    "Product TRO risk detection",
    "Checks a product image (and optional text) for temporary-restraining-order litigation risk.",
    troDetectionRequest,
    troDetectionDataSchema,
    "results",
  ),
  "vendorb-copyright-detection": ipRisk(
    "Image copyright detection",
    "Finds copyrighted images similar to a product image.",
    copyrightDetectionRequest,
    copyrightDetectionDataSchema,
    "data",
  ),
  "vendorb-detection-patent-design": ipRisk(
    "Design patent detection",
    "Finds design patents similar to a product image, by region and status.",
    designPatentDetectionRequest,
    designPatentDetectionDataSchema,
    "data",
  ),
  "vendorb-gun-parts-search": ipRisk(
    "Policy-violating parts search",
    "Compares a product image against a database of policy-violating items.",
    policyPartsSearchRequest,
    policyPartsSearchDataSchema,
    "data",
  ),
} satisfies Record<string, Def>;

/** The documented operations' exact request and `data` schemas, by slug (a call's types are inferred from it). */
export type DocumentedOperations = typeof documented;

const operations: Operation[] = Object.entries(documented).map(([slug, def]) => ({
  slug,
  ...def,
  tool: toolName(slug),
}));

/** The 23 documented operations, by slug. */
export const catalog: ReadonlyMap<string, Operation> = new Map(operations.map((o) => [o.slug, o]));

export function getOperation(slug: string): Operation | undefined {
  return catalog.get(slug);
}

/** Any other slug of the 172-operation catalog: a JSON object body, a loose `data`. */
export const genericRequest = z.record(z.string(), z.unknown());
export const genericData = z.record(z.string(), z.unknown());
