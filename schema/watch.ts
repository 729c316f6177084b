import { z } from "zod";
import { webhookUrl } from "./notify.js";
import { duration } from "./pipeline.js";

/** How a watch's alerts are sent: one message per load, per day, or one per alert. */
const DIGESTS = ["load", "day", "none"] as const;
type Digest = (typeof DIGESTS)[number];

/** A watch's name: what `watch rm`, `alerts --watch` and the file name (`watches/NAME.yaml`) use. */
export const WATCH_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const WATCH_NAME_RULE = "must be 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit";

/** `10%` (relative to the old value) or `5` (in the column's unit). */
const amount = z.union([
  z.number().positive(),
  z.string().regex(/^\d+(\.\d+)?%?$/, { message: 'must be an amount such as "10%" or 5' }),
]);
const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const key = z.union([z.string().max(1000), z.number()]).transform(String);

const keysSchema = z.union([
  z.strictObject({ list: z.array(key).min(1).max(100_000) }),
  z.strictObject({ file: z.string().min(1) }),
  z.strictObject({ sql: z.string().min(1).max(10_000) }),
]);

const whenSchema = z.strictObject({
  to: scalar.optional(),
  from: scalar.optional(),
  fell_by: amount.optional(),
  rose_by: amount.optional(),
  appeared: z.boolean().optional(),
});

const notifySchema = z.strictObject({
  url: webhookUrl.optional(),
  email: z
    .array(z.email({ message: "must be an e-mail address" }))
    .max(50)
    .optional(),
  digest: z.enum(DIGESTS).optional(),
  cooldown: duration.optional(),
});

/**
 * `watches/NAME.yaml`: the members of `skillsync watch add`'s flags (docs/alerts.md). Absent `keys`
 * watches every key; absent `columns` every content column; absent `when` any change of them.
 */
export const watchFileSchema = z.strictObject({
  table: z.string().min(1).max(63),
  keys: keysSchema.optional(),
  columns: z.array(z.string().min(1).max(63)).min(1).max(200).optional(),
  when: whenSchema.optional(),
  notify: notifySchema.optional(),
});

export type WatchFile = z.infer<typeof watchFileSchema>;

/** `--fell-by 10%` → { value: 10, percent: true }; `--fell-by 5` → { value: 5, percent: false }. */
export interface Amount {
  value: number;
  percent: boolean;
}

/** A watch as stored (skillsync_watches.spec) and evaluated: its file or flags resolved and checked. */
export interface WatchSpec {
  table: string;
  /** The columns (or child tables) watched; null: every content column and child table. */
  columns: string[] | null;
  when: { to?: string; from?: string; fellBy?: Amount; roseBy?: Amount; appeared?: boolean };
  notify: {
    /** `env:NAME` (the variable holds the URL) or `hash:<16 hex>` (a literal URL, kept only as its hash). */
    url: string | null;
    email: string[];
    digest: Digest;
    cooldownMs: number | null;
  };
  /** True: every key of the table; false: the keys in skillsync_watch_keys. */
  allKeys: boolean;
}

/** `"10%"` / `5` as an Amount. */
export function amountOf(a: string | number): Amount {
  if (typeof a === "number") return { value: a, percent: false };
  return { value: Number.parseFloat(a), percent: a.endsWith("%") };
}
