import { type FaultPatch, type FaultSettings, mergeFaults } from "./options.js";
import { Rng } from "./random.js";

/** The faults decided for one accepted call, before it is processed. */
export interface CallFaults {
  /** 5xx status to answer with instead of processing (not charged). */
  serverError: number | null;
  /** HTTP 200 with envelope code ≠ 0 (not charged). */
  platformError: { code: number; msg: string } | null;
  /** Processed and charged, then never answered. */
  timeout: boolean;
  /** Processed and charged, then answered with a broken body (variant 0..2). */
  malformed: number | null;
  /** Success with extra members and nulls; the number seeds what changes. */
  drift: number | null;
}

const SERVER_ERRORS = [500, 502, 503] as const;
const PLATFORM_ERRORS = [
  { code: 1001, msg: "upstream provider is busy, try again later" },
  { code: 2003, msg: "upstream quota exhausted for this operation" },
  { code: 5000, msg: "internal processing error" },
] as const;

/**
 * Fault injection. Random knobs draw from a PRNG seeded by the `seed` option, a fixed number of
 * draws per call, so a run with the same calls in the same order fails the same calls whichever
 * knobs are on.
 */
export class FaultState {
  settings: FaultSettings;
  private rng: Rng;
  private jitterRng: Rng;
  private seed: number;
  private buckets = new Map<number, { tokens: number; at: number }>();

  constructor(settings: FaultSettings, seed: number) {
    this.settings = settings;
    this.seed = seed;
    this.rng = new Rng(seed);
    this.jitterRng = new Rng(seed ^ 0x5bd1e995);
  }

  update(patch: FaultPatch): FaultSettings {
    if (patch.rateLimit !== undefined) this.buckets.clear();
    this.settings = mergeFaults(this.settings, patch);
    if (patch.seed !== undefined) {
      this.seed = patch.seed;
      this.restart();
    }
    return this.settings;
  }

  /** Restarts the draws and refills the buckets (reset). */
  restart(): void {
    this.rng = new Rng(this.seed);
    this.jitterRng = new Rng(this.seed ^ 0x5bd1e995);
    this.buckets.clear();
  }

  /** Takes a token for the account; returns null when allowed, else the seconds to wait (Retry-After). */
  takeToken(account: number, nowMs: number): number | null {
    const limit = this.settings.rateLimit;
    if (!limit) return null;
    const burst = limit.burst ?? Math.max(1, Math.ceil(limit.perSecond));
    const bucket = this.buckets.get(account) ?? { tokens: burst, at: nowMs };
    bucket.tokens = Math.min(burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * limit.perSecond);
    bucket.at = nowMs;
    this.buckets.set(account, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
  }

  decide(seq: number): CallFaults {
    const s = this.settings;
    const r = [
      this.rng.next(),
      this.rng.next(),
      this.rng.next(),
      this.rng.next(),
      this.rng.next(),
      this.rng.next(),
    ];
    const variant = Math.floor((r[5] as number) * 3);
    const scheduled = s.errorSchedule.find((e) => (typeof e === "number" ? e : e.call) === seq);
    let serverError: number | null = null;
    if (scheduled !== undefined) serverError = typeof scheduled === "number" ? 500 : scheduled.status;
    else if ((r[0] as number) < s.errorRate) serverError = SERVER_ERRORS[variant] as number;
    return {
      serverError,
      platformError: (r[1] as number) < s.platformErrorRate ? (PLATFORM_ERRORS[variant] ?? null) : null,
      timeout: (r[2] as number) < s.timeoutRate,
      malformed: (r[3] as number) < s.malformedRate ? variant : null,
      drift: (r[4] as number) < s.driftRate ? Math.floor((r[5] as number) * 0xffffffff) : null,
    };
  }

  /** Milliseconds to wait before answering. */
  delay(): number {
    const { latencyMs, jitterMs } = this.settings;
    return latencyMs + (jitterMs > 0 ? Math.floor(this.jitterRng.next() * (jitterMs + 1)) : 0);
  }
}
