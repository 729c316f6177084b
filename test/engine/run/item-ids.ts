import type { emulatorWithClient } from "../../helpers/emulator.js";

// Shared by item-reuse.test.ts (one process) and item-reuse.processes.test.ts (two at once).

type Emu = Awaited<ReturnType<typeof emulatorWithClient>>["emulator"];

/** How many times each identifier was billed, from the emulator's ledger. */
export function paidPerItem(emulator: Emu): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of emulator.ledger().calls) {
    if (c.credits <= 0) continue;
    for (const item of c.items ?? []) out.set(item, (out.get(item) ?? 0) + 1);
  }
  return out;
}

/** `n` patent numbers the emulator knows (most of them), from the `from`-th on. */
export const ids = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `US${5_000_000 + (from + i) * 7}B2`);

/** `list` in an order fixed by `seed`: runs over the same items ask for them in other orders. */
export function shuffled<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let x = seed;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
