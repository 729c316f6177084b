/** A small seeded generator (mulberry32), so a failing trial can be replayed from its seed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
export const between = (rnd: () => number, min: number, max: number): number =>
  min + Math.floor(rnd() * (max - min + 1));

/** A trial count from the environment (for longer soak runs), else the default. */
export function envCount(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** Runs `fn` over `items` with at most `lanes` at once; lane numbers are 0..lanes-1. */
export async function inLanes<T>(
  items: T[],
  lanes: number,
  fn: (item: T, lane: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async (_, lane) => {
      while (next < items.length) {
        const item = items[next++]!;
        await fn(item, lane);
      }
    }),
  );
}
