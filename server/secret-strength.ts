import { MIN_SECRET_LENGTH } from "./signature.js";

/**
 * Fewest different characters a server secret may have. A random 32-character hex secret has 16
 * at most and fewer than 10 about once in 12,000 draws; below 8 never showed in 2,000,000.
 */
const MIN_SECRET_SYMBOLS = 8;
/**
 * Least estimated entropy, bits: the characters' Shannon entropy times the length. The estimate
 * runs low on short samples (a random 32-character hex secret: ~112 of its 128 bits, under 96
 * once in 15,000 draws); 80 never refused one in 2,000,000, and still refuses the guessable ones.
 */
const MIN_SECRET_BITS = 80;

/**
 * What makes a server secret guessable, or undefined when it is fine: shorter than 32 characters,
 * whitespace-only or padded with whitespace, too few different characters ("aaaa…"), a repeated pattern ("abcdefghijabcdefghij…"), or
 * too little entropy overall. `openssl rand -hex 32` passes with room to spare.
 *
 * @example secretProblem(" ".repeat(32)) // "is only whitespace"
 */
export function secretProblem(secret: string): string | undefined {
  if (secret.length < MIN_SECRET_LENGTH) return `must be at least ${MIN_SECRET_LENGTH} characters`;
  if (secret.trim() === "") return "is only whitespace";
  if (secret.trim() !== secret) return "starts or ends with whitespace (a copy-paste mistake?)";
  const counts = new Map<string, number>();
  for (const c of secret) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (counts.size < MIN_SECRET_SYMBOLS) {
    return `has only ${counts.size} different characters; use at least ${MIN_SECRET_SYMBOLS}`;
  }
  const chars = [...secret];
  for (let period = 1; period <= chars.length / 2; period++) {
    if (chars.every((c, i) => i + period >= chars.length || c === chars[i + period])) {
      return `repeats a pattern of ${period} characters`;
    }
  }
  let perChar = 0;
  const n = chars.length;
  for (const k of counts.values()) perChar -= (k / n) * Math.log2(k / n);
  const bits = Math.floor(perChar * n);
  if (bits < MIN_SECRET_BITS)
    return `is too predictable (about ${bits} bits; at least ${MIN_SECRET_BITS} needed)`;
  return undefined;
}
