import type { LedgerCall } from "../../../emulator/index.js";
import { REPORT_CREATES, REPORT_STATUS } from "./emulator.js";

const CHARGED = new Set(["ok", "drift", "malformed", "timeout"]);
export const charged = (calls: LedgerCall[]): LedgerCall[] => calls.filter((c) => CHARGED.has(c.status));
export const credits = (calls: LedgerCall[]): number => charged(calls).reduce((s, c) => s + c.credits, 0);

export interface PaidTwice {
  /** Requests (slug + body) charged more than once, status polls aside. */
  paidTwice: { slug: string; bodyHash: string | null; times: number }[];
  /** Report creates charged more than once for the same body. */
  createdTwice: number;
  polls: number;
}

/**
 * Which requests the emulator charged more than once. Status polls of a report repeat the same
 * body by design (each is a paid call): they are counted apart; creates and downloads are not.
 */
export function paidTwice(calls: LedgerCall[]): PaidTwice {
  const seen = new Map<string, { slug: string; bodyHash: string | null; times: number }>();
  let polls = 0;
  for (const c of charged(calls)) {
    if (c.slug === REPORT_STATUS) {
      polls++;
      continue;
    }
    const key = `${c.slug}\n${c.bodyHash}`;
    const e = seen.get(key) ?? { slug: c.slug, bodyHash: c.bodyHash, times: 0 };
    e.times++;
    seen.set(key, e);
  }
  const twice = [...seen.values()].filter((e) => e.times > 1);
  return {
    paidTwice: twice,
    createdTwice: twice.filter((e) => REPORT_CREATES.has(e.slug)).length,
    polls,
  };
}
