import cron from "node-cron";
import { z } from "zod";
import { notifySchema } from "./notify.js";

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** True when the runtime knows the IANA zone (`Europe/Berlin`, `UTC`). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The `schedule:` block of a pipeline file: when `skillsync schedule` runs it, and with what.
 * Ticks are matched in `timezone` (default UTC, so schedulers on machines in different zones agree
 * on the same instants and claim each tick once).
 */
export const scheduleSchema = z.strictObject({
  /** Five fields, or six with seconds first: `0 6 * * *`, `*\/30 * * * * *`. */
  cron: z
    .string()
    .min(1)
    .superRefine((expr, ctx) => {
      if (cron.validate(expr)) return;
      const detail = cron
        .validateDetailed(expr)
        .errors.map((e) => `${e.field}: ${e.message}`)
        .join("; ");
      ctx.addIssue({
        code: "custom",
        message: `is not a cron expression (${detail || "use 5 fields, or 6 with seconds first"})`,
      });
    }),
  timezone: z
    .string()
    .refine(isTimeZone, { message: "is not an IANA time zone such as UTC or Europe/Berlin" })
    .default("UTC"),
  /** Params for scheduled runs, as `--param` would give them; relative dates (`yesterday`) resolve per tick. */
  params: z.record(z.string(), z.union([scalar, z.array(scalar)])).default({}),
  /** At start, run the latest tick missed while no scheduler was running (once). */
  catchUp: z.boolean().default(false),
  /** Pause the schedule after this many failed runs in a row, until `skillsync schedule resume`. */
  maxFailures: z.number().int().min(1).default(3),
  /** Credit ceiling of each scheduled run (like `--max-credits`). */
  maxCredits: z.number().positive().optional(),
  /** Calls in flight at most in each scheduled run (like `--concurrency`). */
  concurrency: z.number().int().min(1).max(256).optional(),
  /** A webhook told of this pipeline's failed, warning and ceiling runs, budgets and lost ticks. */
  notify: notifySchema.optional(),
});

export type ScheduleSpec = z.infer<typeof scheduleSchema>;
