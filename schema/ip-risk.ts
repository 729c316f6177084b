import { z } from "zod";
import { dataObject, httpUrl, imageRef, opt, record, text1000 } from "./common.js";

const s = opt(z.string());
const n = opt(z.number());
const b = opt(z.boolean());
const arr = opt(z.array(z.unknown()));

const images = (max: number, name: string) =>
  z.array(imageRef).max(max, { message: `${name} takes at most ${max} images` });

/** `vendora-product-tro-detection`: unknown members allowed, only mainProductImage required. */
export const troDetectionRequest = z.looseObject({
  mainProductImage: imageRef,
  referenceImages: images(3, "referenceImages").optional(),
  otherProductImages: images(5, "otherProductImages").optional(),
  ipImages: images(3, "ipImages").optional(),
  referenceText: text1000.optional(),
  description: text1000.optional(),
  ipKeywords: z.array(text1000).max(20, { message: "ipKeywords takes at most 20 keywords" }).optional(),
  language: z.enum(["zh", "en"], { message: "language must be zh or en" }).default("zh"),
});

const riskRecordShape = {
  riskLevel: s,
  ipType: s,
  text: s,
  ipOwner: s,
  regNo: s,
  riskDescription: s,
  report: s,
  riskScore: n,
  ipAssetUrls: arr,
  plaintiffId: n,
  plaintiffName: s,
  numberOfCases: n,
  lastCaseDocket: s,
  lastCaseDateFiled: s,
};

export const troDetectionDataSchema = dataObject({
  checkId: s,
  status: s,
  results: opt(z.array(record({ ...riskRecordShape, columns: arr }))),
  nonResults: opt(z.array(record(riskRecordShape))),
});

/** `vendorb-copyright-detection`: the contract lists all three members as required. */
export const copyrightDetectionRequest = z.looseObject({
  imageUrl: httpUrl,
  topNumber: z.number().int().min(10, { message: "topNumber must be at least 10" }).max(200, {
    message: "topNumber must be at most 200",
  }),
  enableRadar: z.boolean(),
});

export const copyrightDetectionDataSchema = dataObject({
  detectId: s,
  data: opt(
    z.array(
      record({
        path: s,
        pathThumb: s,
        similarity: opt(z.union([z.string(), z.number()])),
        subRadarResult: n,
        copyrightUrl: s,
        copyrightCode: s,
        rightsOwner: s,
        link: s,
        troCase: b,
        troHolder: b,
      }),
    ),
  ),
});

export const DESIGN_REGIONS = [
  "US",
  "EU",
  "CN",
  "JP",
  "KR",
  "DE",
  "GB",
  "FR",
  "IT",
  "AU",
  "CA",
  "BR",
  "MX",
  "IN",
  "TH",
  "SE",
  "CH",
  "IE",
  "IL",
  "DK",
  "NZ",
  "AT",
  "BX",
  "FI",
  "WO",
] as const;

const regions = text1000
  .refine((v) => v.split(",").every((code) => (DESIGN_REGIONS as readonly string[]).includes(code.trim())), {
    message: `regions must be comma-separated codes from ${DESIGN_REGIONS.join(", ")}`,
  })
  .describe(`Comma-separated region codes from ${DESIGN_REGIONS.join(", ")}; at most 1000 characters.`);

/** `vendorb-detection-patent-design`: imageUrl, queryMode and topNumber required. */
export const designPatentDetectionRequest = z.looseObject({
  imageUrl: httpUrl,
  queryMode: z.enum(["physical", "line", "hybrid"], {
    message: "queryMode must be physical, line or hybrid",
  }),
  topNumber: z.number().int().min(1).max(100, { message: "topNumber must be at most 100" }),
  regions: regions.optional(),
  productTitle: text1000.optional(),
  productDescription: text1000.optional(),
  patentStatus: z
    .enum(["1", "0", "1,0", "0,1"], { message: 'patentStatus must be "1", "0" or "1,0"' })
    .optional(),
  enableRadar: z.boolean().optional(),
  topLoc: z
    .string()
    .max(1000)
    .regex(/^\d{2}(,\d{2})*$/, { message: "topLoc must be two-digit LOC classes separated by commas" })
    .optional(),
  sourceLanguage: text1000.optional(),
});

export const designPatentDetectionDataSchema = dataObject({
  data: opt(
    z.array(
      record({
        applicationNumber: s,
        publicationNumber: s,
        patentProd: s,
        patentProdCn: s,
        similarity: opt(z.union([z.string(), z.number()])),
        patentImageUrl: s,
        images: arr,
        abstracts: opt(z.unknown()),
        specification: opt(z.unknown()),
        inventors: arr,
        applicants: arr,
        applicantAddresses: arr,
        troCase: b,
        troHolder: b,
        radarResult: opt(record({ same: b, exp: s })),
        patentLoc: opt(z.unknown()),
        locOneInfo: opt(z.unknown()),
        locTwoInfo: opt(z.unknown()),
        patentValidity: opt(z.unknown()),
        applicationDate: opt(z.union([z.string(), z.number()])),
        publicationDate: opt(z.union([z.string(), z.number()])),
        grantDate: opt(z.union([z.string(), z.number()])),
        estimatedDueDate: opt(z.union([z.string(), z.number()])),
        registrationOfficeCode: s,
        patentFamily: arr,
        globalPatentId: opt(z.union([z.string(), z.number()])),
        globalImageId: opt(z.union([z.string(), z.number()])),
        isSketchText: opt(z.unknown()),
      }),
    ),
  ),
});

/** `vendorb-gun-parts-search`: imageUrl required. */
export const policyPartsSearchRequest = z.looseObject({ imageUrl: httpUrl });

export const policyPartsSearchDataSchema = dataObject({
  detectId: s,
  data: opt(z.array(record({ pdImgOssUrl: s, pdTitle: s, pdTitleCHNCensored: s, cosine: n }))),
});
