/** Small numeric helpers for the benchmark: medians, formatting, timing. */

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Seconds of wall time `fn` takes. */
export async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
}

export const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

/** `12 345` style grouping for big counts. */
export const grouped = (n: number): string => Math.round(n).toLocaleString("en-US").replaceAll(",", " ");

export const mb = (bytes: number): number => round(bytes / 1024 / 1024, 0);

/** The lowest and highest of each run's own ratio, `0.8–0.93` (a result saved before they were kept: `–`). */
export const spread = (values: number[] | undefined, digits = 2): string =>
  values?.length ? `${round(Math.min(...values), digits)}–${round(Math.max(...values), digits)}` : "–";
