import { z } from "zod";
import { dataObject, isoDate, opt, record } from "./common.js";

// Contract 4.2: every advertising request object rejects unknown members.
const connectionId = z.number().int().min(1, { message: "connectionId must be an integer >= 1" });
const nonEmpty = (name: string) => z.string().min(1, { message: `${name} must not be empty` });

const reportPartSchema = record({ documentToken: z.string() });

export const reportDataSchema = dataObject({
  reportId: z.string(),
  status: opt(z.string()),
  completedReportParts: opt(z.array(reportPartSchema)),
  reportParts: opt(z.array(reportPartSchema)),
});

export const reportDownloadDataSchema = dataObject({
  contentType: opt(z.string()),
  content: opt(z.string()),
});

export const reportDownloadRequest = z.strictObject({
  connectionId,
  documentToken: nonEmpty("documentToken"),
});

export const reportStatusRequest = z.strictObject({
  connectionId,
  reportId: nonEmpty("reportId"),
});

const reportCreateShape = {
  connectionId,
  startDate: isoDate,
  endDate: isoDate,
  advertiserAccountId: nonEmpty("advertiserAccountId").optional(),
  timeUnit: z.enum(["DAILY", "SUMMARY"]).default("DAILY"),
};

export const searchImpressionShareRequest = z.strictObject(reportCreateShape);

export const audienceRequest = z.strictObject({
  ...reportCreateShape,
  detailLevel: z.enum(["ACCOUNT", "CAMPAIGN", "AD_GROUP"]).default("ACCOUNT"),
});
