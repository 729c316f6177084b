import { z } from "zod";
import { fromZodIssues, ValidationError } from "../core/errors.js";
import { DEFAULT_EMULATOR_DATE, emulatorDateSchema } from "./clock.js";
import type { GenericSlugs } from "./generic.js";

/** The key every emulator accepts unless keys are configured; it is public, printed at start. */
export const DEMO_KEY = "sk-demo-skillsync-local-0000";
export const DEFAULT_EMULATOR_PORT = 7878;
export const DEFAULT_EMULATOR_HOST = "127.0.0.1";

const FAMILIES = ["advertising", "marketplace", "patent-search", "patent-identifier", "ip-risk"] as const;
const rate = z.number().min(0).max(1);
const count = z.number().int().min(0);

const faultSchema = z.strictObject({
  /** Added to every skill answer, in milliseconds. */
  latencyMs: count,
  /** A uniform random 0..jitterMs added on top of latencyMs. */
  jitterMs: count,
  /** Token bucket per key: `perSecond` refill, `burst` capacity (default perSecond). null = no limit. */
  rateLimit: z
    .strictObject({ perSecond: z.number().positive(), burst: z.number().int().min(1).optional() })
    .nullable(),
  /** Fraction of accepted calls answered 500/502/503 (not charged). */
  errorRate: rate,
  /** Ledger sequence numbers (1-based since start/reset) answered with a 5xx (500 unless a status is given). */
  errorSchedule: z.array(
    z.union([
      count.min(1),
      z.strictObject({ call: count.min(1), status: z.number().int().min(500).max(599) }),
    ]),
  ),
  /** Fraction of calls processed and charged, then never answered. */
  timeoutRate: rate,
  /** Fraction of calls charged whose body is not JSON or not the envelope. */
  malformedRate: rate,
  /** Fraction of calls answered HTTP 200 with envelope code ≠ 0 (not charged). */
  platformErrorRate: rate,
  /** Fraction of successes with unknown extra members and nulls in optional members. */
  driftRate: rate,
});

export type FaultSettings = z.infer<typeof faultSchema>;
/** What `setFaults` and `POST /__emulator/faults` take: any subset of the knobs, and optionally a new seed. */
export type FaultPatch = Partial<FaultSettings> & { seed?: number };
const faultPatchSchema = faultSchema.partial().extend({ seed: count.optional() });

const NO_FAULTS: FaultSettings = {
  latencyMs: 0,
  jitterMs: 0,
  rateLimit: null,
  errorRate: 0,
  errorSchedule: [],
  timeoutRate: 0,
  malformedRate: 0,
  platformErrorRate: 0,
  driftRate: 0,
};

const keySchema = z.strictObject({
  key: z.string().min(8, { message: "an API key must be at least 8 characters" }),
  /** Credits the key may spend; unlimited when absent. */
  balance: z.number().min(0).optional(),
  /** Operation families this key has no access to (403). */
  deny: z.array(z.enum(FAMILIES)).optional(),
});

const priceSchema = z.union([z.number().min(0), z.strictObject({ perItem: z.number().min(0) })]);

const optionsSchema = faultPatchSchema.extend({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  keys: z.array(keySchema).min(1).optional(),
  /** Credits per call (a number) or per identifier asked for (`{ perItem }`), by slug. */
  prices: z.record(z.string(), priceSchema).optional(),
  /** Status polls that answer PENDING before a report completes. */
  reportPendingPolls: count.optional(),
  reportParts: count.min(1).max(100).optional(),
  reportRowsPerPart: count.optional(),
  /** connectionIds whose reports end with status FAILED instead of COMPLETED. */
  failedReports: z.array(count.min(1)).optional(),
  /** connectionIds that answer 403 on every advertising operation. */
  deniedConnections: z.array(count.min(1)).optional(),
  /** How many of the latest calls the ledger lists (totals stay exact). */
  ledgerLimit: count.min(1).optional(),
  maxBodyBytes: count.min(1024).optional(),
  /** Serve catalog slugs the contract does not detail with loose synthetic data: true for any, or a list. */
  genericSlugs: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
  /** The emulated date, yyyy-mm-dd (default DEFAULT_EMULATOR_DATE): answers are those of that day. */
  date: emulatorDateSchema.optional(),
});

export type EmulatorKey = z.infer<typeof keySchema>;
export type EmulatorOptions = z.input<typeof optionsSchema>;

export interface ResolvedOptions {
  port: number;
  host: string;
  keys: EmulatorKey[];
  prices: Record<string, number | { perItem: number }>;
  seed: number;
  faults: FaultSettings;
  reportPendingPolls: number;
  reportParts: number;
  reportRowsPerPart: number;
  failedReports: Set<number>;
  deniedConnections: Set<number>;
  ledgerLimit: number;
  maxBodyBytes: number;
  genericSlugs: GenericSlugs;
  date: string;
}

/** Checks the options and fills the defaults; throws ValidationError naming each bad option. */
export function resolveOptions(input: EmulatorOptions = {}): ResolvedOptions {
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError("emulator options", fromZodIssues(parsed.error.issues));
  const o = parsed.data;
  return {
    port: o.port ?? 0,
    host: o.host ?? DEFAULT_EMULATOR_HOST,
    keys: o.keys ?? [{ key: DEMO_KEY }],
    prices: o.prices ?? {},
    seed: o.seed ?? 1,
    faults: mergeFaults(NO_FAULTS, o),
    reportPendingPolls: o.reportPendingPolls ?? 2,
    reportParts: o.reportParts ?? 2,
    reportRowsPerPart: o.reportRowsPerPart ?? 50,
    failedReports: new Set(o.failedReports ?? []),
    deniedConnections: new Set(o.deniedConnections ?? []),
    ledgerLimit: o.ledgerLimit ?? 100_000,
    maxBodyBytes: o.maxBodyBytes ?? 1024 * 1024,
    genericSlugs: Array.isArray(o.genericSlugs) ? new Set(o.genericSlugs) : (o.genericSlugs ?? false),
    date: o.date ?? DEFAULT_EMULATOR_DATE,
  };
}

/** Validates a fault patch (from code or from `POST /__emulator/faults`). */
export function parseFaultPatch(input: unknown): FaultPatch {
  const parsed = faultPatchSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError("emulator faults", fromZodIssues(parsed.error.issues));
  return parsed.data as FaultPatch;
}

export function mergeFaults(
  current: FaultSettings,
  patch: { [K in keyof FaultSettings]?: FaultSettings[K] | undefined },
): FaultSettings {
  const next: FaultSettings = { ...current };
  for (const key of Object.keys(NO_FAULTS) as (keyof FaultSettings)[]) {
    if (patch[key] !== undefined) (next as Record<string, unknown>)[key] = patch[key];
  }
  return next;
}
