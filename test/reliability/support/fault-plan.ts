/**
 * What the fault runs inject and give each built-in pipeline: the emulator's knobs in combination,
 * rounds with their own seeds, and the params every built-in pipeline needs.
 */
export const FAULTS = {
  rateLimit: { perSecond: 15, burst: 4 },
  errorRate: 0.12,
  timeoutRate: 0.06,
  malformedRate: 0.08,
  platformErrorRate: 0.08,
  driftRate: 0.3,
};
/** Rounds of runs under faults (each with its own seed) before the run without faults. */
export const FAULT_ROUNDS = [11, 12, 13];
export const NO_FAULTS = {
  rateLimit: null,
  errorRate: 0,
  timeoutRate: 0,
  malformedRate: 0,
  platformErrorRate: 0,
  driftRate: 0,
};
export const PATENTS = Array.from({ length: 14 }, (_, i) => `US${10_400_000 + i * 37}B2`);
export const IMAGES = Array.from({ length: 8 }, (_, i) => `https://img.example/product-${i}.jpg`);
const RANGE = { start: ["2025-04-01"], end: ["2025-04-03"] };

/** What each built-in pipeline is given. */
export function paramsFor(name: string, i: number): Record<string, string[]> {
  if (name === "marketplace-search")
    return { keyword: ["usb hub", "desk lamp", "yoga mat", "phone stand", "tea kettle"], pages: ["2"] };
  if (name === "patent-search")
    return { q: ["solid state battery", "drone propeller", "heat pump valve"], pages: ["2"] };
  if (name === "patent-search-by-date")
    return { q: ["solid state battery", "heat pump valve"], ...RANGE, step: ["1d"], pages: ["2"] };
  if (name.startsWith("patent-")) return { patent: PATENTS };
  if (name.startsWith("ip-")) return { image: IMAGES };
  // One report over the range (the built-ins ask one per day by default).
  if (name.startsWith("ads-")) return { connection: [String(20 + i)], ...RANGE, step: ["range"] };
  throw new Error(`no params for the built-in pipeline ${name}: add them here`);
}

/** Pipelines run through the CLI's main() (exit codes); the others in-process (fast report polls, quick timeouts). */
export const THROUGH_CLI = new Set([
  "marketplace-search",
  "patent-claims",
  "ip-copyright-check",
  "patent-family",
]);

/** The emulator's fault statuses and the error codes the ledger records for them. */
export const FAULT_STATUS: Record<string, string> = {
  "server-error": "SERVER",
  "platform-error": "PLATFORM",
  malformed: "RESPONSE_SHAPE",
  timeout: "TRANSPORT",
};
