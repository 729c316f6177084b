import { z } from "zod";
import { dataObject, opt, record } from "./common.js";

const MAX_IDENTIFIERS = 100;
const MAX_IDENTIFIER_CHARS = 60_000;

/** Splits a comma-separated identifier list the way the contract counts it. */
function splitIdentifiers(list: string): string[] {
  return list.split(",").map((v) => v.trim());
}

const identifierList = z
  .string()
  .max(MAX_IDENTIFIER_CHARS, { message: `must be at most ${MAX_IDENTIFIER_CHARS} characters` })
  .superRefine((value, ctx) => {
    const values = splitIdentifiers(value);
    if (values.some((v) => v.length === 0)) {
      ctx.addIssue({
        code: "custom",
        message: "must be identifiers separated by commas, with no empty value",
      });
    } else if (values.length > MAX_IDENTIFIERS) {
      ctx.addIssue({
        code: "custom",
        message: `holds ${values.length} identifiers; at most ${MAX_IDENTIFIERS} are allowed per call`,
      });
    }
  })
  // The count rule is a refinement JSON Schema cannot carry; the description keeps it visible in the documents.
  .describe(
    `1 to ${MAX_IDENTIFIERS} identifiers separated by commas (no empty value), at most ${MAX_IDENTIFIER_CHARS} characters.`,
  );

// Unknown members are allowed on these operations (contract 4.4).
const identifierShape = {
  patentId: identifierList.optional(),
  patentNumber: identifierList.optional(),
};

const atLeastOne = (v: Record<string, unknown>) =>
  v["patentId"] !== undefined || v["patentNumber"] !== undefined;
const atLeastOneIssue = { message: "give patentId or patentNumber (at least one)", path: ["patentId"] };

const identifierRequest = <S extends z.ZodRawShape>(extra: S) =>
  z
    .looseObject({ ...identifierShape, ...extra })
    .refine(atLeastOne, atLeastOneIssue)
    // The same rule for the generated JSON Schema (the documents): anyOf required, plus words for readers.
    .meta({
      description:
        "Give patentId or patentNumber (at least one); when both are given, patentId wins. Unknown members are allowed.",
      anyOf: [{ required: ["patentId"] }, { required: ["patentNumber"] }],
    });

const lang = z.enum(["en", "cn", "jp"], { message: "lang must be en, cn or jp" }).default("en");
/** typed string ("0"/"1") in claims and description. */
const replaceByRelatedText = z
  .enum(["0", "1"], { message: 'replaceByRelated must be "0" or "1"' })
  .default("0");
/** typed integer (0/1) in the translation operations. */
const replaceByRelatedInt = z
  .union([z.literal(0), z.literal(1)], { message: "replaceByRelated must be 0 or 1" })
  .default(0);

const numericString = (name: string, max?: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: `${name} must be a whole number written as a string` })
    .refine((v) => max === undefined || Number(v) <= max, { message: `${name} must be at most ${max}` })
    .describe(`A whole number written as a string${max === undefined ? "" : `, at most ${max}`}.`);

const s = opt(z.string());
const n = opt(z.number());
const arr = opt(z.array(z.unknown()));
const base = { patentId: s, pn: s };

/** Each patent-identifier operation: request schema, record schema and whether `lang` applies. */
export const patentIdentifierOperations = {
  "patent-abstract-image-data": {
    title: "Patent abstract image",
    request: identifierRequest({}),
    record: record({ ...base, abstractDrawingPath: s }),
  },
  "patent-cited-by": {
    title: "Patents citing a patent",
    request: identifierRequest({}),
    record: record({
      ...base,
      citedBy3y: n,
      citedBy5y: n,
      citedBySimpleFamily: n,
      citedByInpadocFamily: n,
      citedByVendorFamily: n,
      citedByPatents: arr,
    }),
  },
  "patent-claims": {
    title: "Patent claims",
    request: identifierRequest({ replaceByRelated: replaceByRelatedText }),
    record: record({ ...base, pnRelated: s, claims: arr, claimCount: n }),
  },
  "patent-claims-translation": {
    title: "Patent claims, translated",
    request: identifierRequest({ lang, replaceByRelated: replaceByRelatedInt }),
    record: record({ ...base, pnRelated: s, claims: s }),
  },
  "patent-core-bibliography": {
    title: "Patent core bibliography",
    request: identifierRequest({}),
    record: record({
      ...base,
      title: s,
      abstractContent: s,
      publicationNumber: s,
      country: s,
      publicationCountry: s,
      publicationDate: opt(z.union([z.string(), z.number()])),
      publicationKind: s,
      patentType: s,
      kind: s,
      applicationNo: s,
      applicationDate: opt(z.union([z.string(), z.number()])),
      applicants: arr,
      inventors: arr,
      assignees: arr,
      assigneeAddresses: arr,
      ipcMain: opt(z.unknown()),
      ipcFurther: opt(z.unknown()),
      cpcMain: opt(z.unknown()),
      cpcFurther: opt(z.unknown()),
      loc: opt(z.unknown()),
      gbc: opt(z.unknown()),
      priorityClaims: arr,
      pctApplicationNo: s,
      pctFilingDate: opt(z.union([z.string(), z.number()])),
      pctEntryDate: opt(z.union([z.string(), z.number()])),
      citedPatents: arr,
      citedNonPatents: arr,
    }),
    extraData: { allRecordsCount: n },
  },
  "patent-description-data": {
    title: "Patent description",
    request: identifierRequest({ replaceByRelated: replaceByRelatedText }),
    record: record({ ...base, pnRelated: s, description: arr }),
  },
  "patent-description-data-translation": {
    title: "Patent description, translated",
    request: identifierRequest({ lang, replaceByRelated: replaceByRelatedInt }),
    record: record({ ...base, description: s, pnRelated: s }),
  },
  "patent-detailed-bibliography": {
    title: "Patent detailed bibliography",
    request: identifierRequest({}),
    record: record({
      ...base,
      inventionTitle: opt(z.unknown()),
      abstracts: opt(z.unknown()),
      patentType: s,
      applicants: arr,
      assignees: arr,
      inventors: arr,
      agents: arr,
      agency: opt(z.unknown()),
      examiners: arr,
      priorityClaims: arr,
      applicationReference: opt(z.unknown()),
      publicationReference: opt(z.unknown()),
      datesOfPublicAvailability: opt(z.unknown()),
      classificationIpcr: opt(z.unknown()),
      classificationCpc: opt(z.unknown()),
      classificationUpc: opt(z.unknown()),
      classificationLoc: opt(z.unknown()),
      classificationFi: opt(z.unknown()),
      classificationFterm: opt(z.unknown()),
      classificationGbc: opt(z.unknown()),
      referenceCitedPatents: arr,
      referenceCitedOthers: arr,
      relatedDocuments: opt(z.unknown()),
      pctOrRegionalFilingData: opt(z.unknown()),
      pctOrRegionalPublishingData: opt(z.unknown()),
      exdt: n,
    }),
  },
  "patent-fulltext-images": {
    title: "Patent full-text images",
    request: identifierRequest({
      limit: numericString("limit", 100).default("100"),
      offset: numericString("offset").optional(),
    }),
    record: record({ ...base, fulltextImagePath: s, imageType: s }),
  },
  "patent-family-data": {
    title: "Patent family",
    request: identifierRequest({}),
    record: record({
      ...base,
      simpleFamilyId: n,
      simpleFamily: arr,
      inpadocFamilyId: opt(z.union([z.number(), z.string()])),
      inpadocFamily: arr,
      vendorFamilyId: opt(z.union([z.number(), z.string()])),
      vendorFamily: arr,
    }),
  },
  "patent-legal-status-data": {
    title: "Patent legal status",
    request: identifierRequest({}),
    record: record({ ...base, simpleLegalStatus: arr, legalStatus: arr, eventStatus: arr, legalDate: n }),
  },
  "patent-references": {
    title: "Patent references",
    request: identifierRequest({}),
    record: record({ ...base, citedPatents: arr, citedOthers: arr }),
  },
  "patent-title-abstract-translation": {
    title: "Patent title and abstract, translated",
    request: identifierRequest({ lang, replaceByRelated: replaceByRelatedInt }),
    record: record({ ...base, title: s, abstractText: s, pnRelated: s }),
  },
} as const;

export type PatentIdentifierSlug = keyof typeof patentIdentifierOperations;

/** `data` for every patent-identifier operation: total, data (records) and the common members. */
export function patentIdentifierData<R extends z.ZodType>(rec: R, extra: z.ZodRawShape = {}) {
  return dataObject({ total: n, data: opt(z.array(rec)), ...extra });
}

/** The identifiers a request asks for: `patentId` wins over `patentNumber` (contract 4.4). */
export function requestedIdentifiers(body: { patentId?: unknown; patentNumber?: unknown }): string[] {
  const list = typeof body.patentId === "string" ? body.patentId : body.patentNumber;
  return typeof list === "string" ? splitIdentifiers(list) : [];
}

/**
 * The form spellings of one patent identifier share: `US 11234567 B2`, `us11234567b2` and
 * `patent/US11234567B2/en` (a patentId) all become `US11234567B2`. The contract does not say how
 * the service matches identifiers; this is the rule under which a record's `pn` names the asked
 * identifier it answers.
 *
 * @example identifierKey(" patent/us11234567b2/en ") // "US11234567B2"
 */
export function identifierKey(identifier: string): string {
  const trimmed = identifier.trim();
  const path = /^patent\/([^/]+)(?:\/[a-z]{2})?$/i.exec(trimmed);
  return (path ? (path[1] as string) : trimmed).replace(/\s+/g, "").toUpperCase();
}

/** The record members that name the patent a record is about (contract 4.4's record tables). */
export const RECORD_IDENTIFIER_MEMBERS = ["pn", "patentId", "publicationNumber"] as const;

/** The request members that carry identifiers, `patentId` first: it wins when both are given. */
export const IDENTIFIER_MEMBERS = ["patentId", "patentNumber"] as const;

/** Whether `slug` is a patent-identifier operation (its answer holds one or more records per identifier). */
export function isPatentIdentifierSlug(slug: string): slug is PatentIdentifierSlug {
  return Object.hasOwn(patentIdentifierOperations, slug);
}

/**
 * What a patent identifier is, said in errors: the contract's list rule, and what one value of it
 * can be. The contract says only "values separated by English commas"; a value with a space or
 * punctuation in it is no publication number and no patentId, and the service answers it with no
 * record — for a credit.
 */
export const IDENTIFIER_RULE =
  "a patent identifier is a publication number (office, number, kind: US11234567B2) or a patentId (patent/US11234567B2/en): letters and digits, no spaces or punctuation; 1 to 100 of them per call, separated by English commas";

/** How a publication number usually reads: office letters, 5 to 13 digits, a kind code (`EP3000000A1`, `WO2020123456A1`). */
const USUAL_FORM = /^[A-Z]{2}\d{5,13}(?:[A-Z]\d?)?$/;

/**
 * Why `value` cannot be a patent identifier (`IDENTIFIER_RULE`), or undefined when it can. Hyphens,
 * dots and slashes (`JP2020-123456`, a patentId's path) are odd, not impossible: see `isUsualIdentifier`.
 *
 * @example identifierFault("US 123") // 'holds a space (written without: "US123")'
 */
export function identifierFault(value: string): string | undefined {
  const v = value.trim();
  if (!v) return "is empty";
  if (/\s/.test(v)) return `holds a space (written without: ${JSON.stringify(v.replace(/\s+/g, ""))})`;
  if (!/^[A-Za-z0-9/.-]+$/.test(v)) return "holds punctuation no identifier has";
  if (!/\d/.test(v)) return "has no digit: no publication number is letters alone";
  return undefined;
}

/** Whether a possible identifier reads as publication numbers usually do (or is the patentId of one). */
export function isUsualIdentifier(value: string): boolean {
  return USUAL_FORM.test(identifierKey(value));
}
