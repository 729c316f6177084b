import { z } from "zod";

/** The response envelope every operation answers with (contract 2.1). */
export const envelopeSchema = z.looseObject({
  code: z.number().int(),
  msg: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  ts: z.string().regex(/^\d+$/, { message: "ts must be epoch milliseconds as a string" }),
  time: z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, {
    message: "time must be yyyy-MM-dd HH:mm:ss",
  }),
  cost: z.string().regex(/^-?\d+$/, { message: "cost must be elapsed milliseconds as a string" }),
  traceId: z.string().nullable(),
});

// Spelled out: Omit over the loose schema's index signature would erase every named member.
export type Envelope<D = Record<string, unknown>> = {
  code: number;
  msg: string | null;
  data: D | null;
  ts: string;
  time: string;
  cost: string;
  traceId: string | null;
  [member: string]: unknown;
};
