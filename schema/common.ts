import { z } from "zod";

/** A member the contract marks optional and nullable ("each may be null"). */
export const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/**
 * Members that recur in many `data` objects (contract 2.2). `data` objects allow
 * additional members, so every data schema is a loose object built on these.
 */
const commonDataShape = {
  type: opt(z.string()),
  title: opt(z.string()),
  sourceType: opt(z.string()),
  sourceTool: opt(z.string()),
  costToken: opt(z.number()),
  costTime: opt(z.number()),
  page: opt(z.number()),
  pageSize: opt(z.number()),
  pageItemCount: opt(z.number()),
  totalPage: opt(z.number()),
  dataSnapshotMonth: opt(z.string()),
  columns: opt(z.array(z.unknown())),
  total: opt(z.number()),
};

/** A loose `data` object: the common members, the operation's own, and anything else kept as is. */
export const dataObject = <S extends z.ZodRawShape>(shape: S) =>
  z.looseObject({ ...commonDataShape, ...shape });

/** A loose record inside `data`; unknown members are kept. */
export const record = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape);

export const MAX_TEXT = 1000;

export const httpUrl = z
  .string()
  .max(MAX_TEXT, { message: "must be at most 1000 characters" })
  .regex(/^https?:\/\/[^\s]+$/i, { message: "must be an http(s) URL" });

const DATA_IMAGE_URI = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;

/** A public image URL or a `data:image/...;base64,` URI, at most 1000 characters (contract 4.5, 8). */
export const imageRef = z
  .string()
  .max(MAX_TEXT, {
    message:
      "must be at most 1000 characters (a data:image URI this long must be hosted and passed as a URL)",
  })
  .refine((v) => /^https?:\/\/\S+$/i.test(v) || DATA_IMAGE_URI.test(v), {
    message: "must be an http(s) URL or a data:image/...;base64, URI",
  })
  .describe("A public http(s) image URL or a data:image/...;base64, URI, at most 1000 characters.");

export const text1000 = z.string().max(MAX_TEXT, { message: "must be at most 1000 characters" });

/** `yyyy-mm-dd` that is a real calendar date. */
export const isoDate = z.iso.date({ message: "must be a date in the form yyyy-mm-dd" });
