import { z } from "zod";

/** The events a `notify.on` list picks (docs/notifications.md). */
const EVENT_GROUPS = ["failed", "warnings", "ceiling", "budget", "schedule", "worker", "alert"] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];

/** `env:NAME` or `${NAME}`: the URL is in that environment variable, so the file holds no secret. */
export const ENV_REF = /^(?:env:([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)\})$/;

/** A webhook as a settings file gives it: `env:NAME`, `${NAME}`, or the URL itself. */
export const webhookUrl = z
  .string()
  .min(1)
  .refine((u) => ENV_REF.test(u) || /^https?:\/\/[^\s]+$/i.test(u), {
    message:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message shows the ${NAME} form users write.
      "is neither env:NAME, ${NAME} nor an http(s) URL (put the webhook URL in a variable: url: env:SLACK_WEBHOOK)",
  });

/**
 * The `notify:` block of a `schedule:`: a webhook told of this pipeline's scheduled runs that fail,
 * end with warnings or stop at a ceiling, budgets they take past 80 %/100 %, and ticks missed or
 * skipped. A webhook URL holds a token: `url: env:NAME` keeps it out of the file.
 */
export const notifySchema = z.strictObject({
  url: webhookUrl,
  on: z.array(z.enum(EVENT_GROUPS)).min(1).optional(),
});

export type NotifySpec = z.infer<typeof notifySchema>;
