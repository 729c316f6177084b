import { createHash } from "node:crypto";

/**
 * Determinism for the synthetic data: every value comes from a small seeded PRNG whose seed is a
 * hash of what was asked. sha256 and mulberry32 behave the same on every machine, so the same
 * request gives the same answer everywhere (Math.random never feeds data).
 */

/** A 32-bit seed from a sha256 of the parts. */
export function hashSeed(...parts: (string | number)[]): number {
  return createHash("sha256").update(parts.join("\u0001")).digest().readUInt32BE(0);
}

/** Hex digest of the parts, for identifiers (reportId, checkId…). */
export function hashHex(length: number, ...parts: (string | number)[]): string {
  return createHash("sha256").update(parts.join("\u0001")).digest("hex").slice(0, length);
}

/** Cheap integer mix (murmur3 finaliser) to derive many seeds from one without hashing strings again. */
export function mixSeed(a: number, b: number): number {
  let h = (a ^ Math.imul((b + 0x9e3779b9) | 0, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A value in [-1, 1] that wanders smoothly with the day: random knots every `period` days, eased
 * between. O(1) for any day, so a price or a rank "walks" without summing every step since an epoch.
 */
export function smoothNoise(seed: number, day: number, period: number): number {
  const knot = Math.floor(day / period);
  const t = (day - knot * period) / period;
  const a = (mixSeed(seed, knot) / 4294967296) * 2 - 1;
  const b = (mixSeed(seed, knot + 1) / 4294967296) * 2 - 1;
  return a + (b - a) * t * t * (3 - 2 * t);
}

const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** mulberry32: tiny, fast, good enough for synthetic data and fault draws. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `count` distinct items (fewer when the pool is smaller), in pool order shuffled. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0)
      out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0] as T);
    return out;
  }

  digits(count: number): string {
    let s = "";
    for (let i = 0; i < count; i++) s += String(Math.floor(this.next() * 10));
    return s;
  }

  upperAlnum(count: number): string {
    let s = "";
    for (let i = 0; i < count; i++) s += UPPER_ALNUM[Math.floor(this.next() * UPPER_ALNUM.length)];
    return s;
  }

  /** A number with `decimals` decimals in [min, max]. */
  decimal(min: number, max: number, decimals = 2): number {
    const f = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * f) / f;
  }
}
