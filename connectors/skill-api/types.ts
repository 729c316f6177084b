import type { z } from "zod";
import type {
  audienceRequest,
  reportDataSchema,
  reportDownloadDataSchema,
  reportDownloadRequest,
  reportStatusRequest,
  searchImpressionShareRequest,
} from "../../schema/advertising.js";
import type { Envelope } from "../../schema/envelope.js";
import type {
  copyrightDetectionDataSchema,
  copyrightDetectionRequest,
  designPatentDetectionDataSchema,
  designPatentDetectionRequest,
  policyPartsSearchDataSchema,
  policyPartsSearchRequest,
  troDetectionDataSchema,
  troDetectionRequest,
} from "../../schema/ip-risk.js";
import type { marketplaceSearchDataSchema, marketplaceSearchRequest } from "../../schema/marketplace.js";
import type {
  PatentIdentifierSlug,
  patentIdentifierData,
  patentIdentifierOperations,
} from "../../schema/patent-identifier.js";
import type { patentSearchDataSchema, patentSearchRequest } from "../../schema/patent-search.js";

/** `input`: what a caller may pass; `body`: what is sent (defaults applied); `data`: the response's `data`. */
interface Types<Req extends z.ZodType, Data extends z.ZodType> {
  input: z.input<Req>;
  body: z.output<Req>;
  data: z.infer<Data>;
}

type PatentOp<S extends PatentIdentifierSlug> = (typeof patentIdentifierOperations)[S];
/** `patentIdentifierData` is typed with the generic record; put each operation's record back in. */
type PatentData<S extends PatentIdentifierSlug> = z.infer<ReturnType<typeof patentIdentifierData>> & {
  data?: z.infer<PatentOp<S>["record"]>[] | null | undefined;
};
type PatentTypes = {
  [S in PatentIdentifierSlug]: {
    input: z.input<PatentOp<S>["request"]>;
    body: z.output<PatentOp<S>["request"]>;
    data: PatentData<S>;
  };
};

/** Request and response types of the 23 documented operations, inferred from `schema/`. */
export type SkillTypes = PatentTypes & {
  "marketplace-ads-sp-search-impression-share-report": Types<
    typeof searchImpressionShareRequest,
    typeof reportDataSchema
  >;
  "marketplace-ads-sp-audience-report": Types<typeof audienceRequest, typeof reportDataSchema>;
  "marketplace-ads-sp-insights-report-status": Types<typeof reportStatusRequest, typeof reportDataSchema>;
  "marketplace-ads-sp-insights-report-download": Types<
    typeof reportDownloadRequest,
    typeof reportDownloadDataSchema
  >;
  "marketplace-search": Types<typeof marketplaceSearchRequest, typeof marketplaceSearchDataSchema>;
  "websearch-patent-search": Types<typeof patentSearchRequest, typeof patentSearchDataSchema>;
  "vendora-product-tro-detection": Types<typeof troDetectionRequest, typeof troDetectionDataSchema>;
  "vendorb-copyright-detection": Types<typeof copyrightDetectionRequest, typeof copyrightDetectionDataSchema>;
  "vendorb-detection-patent-design": Types<
    typeof designPatentDetectionRequest,
    typeof designPatentDetectionDataSchema
  >;
  "vendorb-gun-parts-search": Types<typeof policyPartsSearchRequest, typeof policyPartsSearchDataSchema>;
};

export type DocumentedSlug = keyof SkillTypes;

type GenericObject = Record<string, unknown>;
/** A documented slug gets its inferred types; any other slug of the catalog a plain JSON object. */
export type InputOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["input"] : GenericObject;
export type BodyOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["body"] : GenericObject;
export type DataOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["data"] : GenericObject;

/** A request that passed validation and can be sent as is. */
export interface PreparedCall<S extends string = string> {
  readonly slug: S;
  readonly body: BodyOf<S>;
}

export interface CallResult<S extends string = string> {
  slug: S;
  /** The envelope's `data` exactly as received (null when the service sent null). */
  data: DataOf<S> | null;
  envelope: Envelope<DataOf<S>>;
  status: number;
  traceId: string | null;
  /** Wall time of the whole call, retries and waits included. */
  elapsedMs: number;
  /** HTTP requests made (1 when nothing was retried). */
  attempts: number;
}

export interface RetryInfo {
  slug: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The wait before the next attempt. */
  delayMs: number;
  reason: "rate-limited" | "connect-failed";
  error: Error;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
}
