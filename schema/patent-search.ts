import { z } from "zod";
import { dataObject, opt, record } from "./common.js";

const dateBound = z.string().regex(/^(priority|filing|publication):\d{8}$/, {
  message: "must be <kind>:<yyyymmdd> with kind priority, filing or publication",
});

/** Contract 4.4 `websearch-patent-search`: unknown members rejected, `q` required. */
export const patentSearchRequest = z.strictObject({
  q: z
    .string()
    .min(1, { message: "q must not be empty" })
    .max(1000, { message: "q must be at most 1000 characters" }),
  num: z.number().int().min(10).max(100).default(10),
  page: z.number().int().min(1).default(1),
  country: z.string().optional(),
  language: z.string().optional(),
  inventor: z.string().optional(),
  assignee: z.string().optional(),
  before: dateBound.optional(),
  after: dateBound.optional(),
  sort: z.enum(["new", "old"]).optional(),
  type: z.enum(["PATENT", "DESIGN"]).optional(),
  status: z.enum(["GRANT", "APPLICATION"]).optional(),
  patents: z.boolean().default(true),
  scholar: z.boolean().default(false),
  litigation: z.enum(["YES", "NO"]).optional(),
  clustered: z.literal(true, { message: "clustered allows only the value true" }).optional(),
  dups: z.literal("language", { message: 'dups allows only the value "language"' }).optional(),
});

export const patentSearchDataSchema = dataObject({
  results: z.array(record({})),
  searchInformation: opt(record({})),
  pagination: opt(record({})),
  summary: opt(record({})),
});
