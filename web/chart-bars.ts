import uPlot from "uplot";
import type { ChartSpec } from "./chart-spec.js";

/** The share of an x step (a day) the bars of one x fill together; the rest is the gap between days. */
const SLOT = 0.8;

/** Where each series' bars sit: which group (side by side) and each bar's bottom and top. */
export interface BarLayout {
  group: number[];
  groups: number;
  bottoms: (number | null)[][];
  tops: (number | null)[][];
}

/** The smallest distance between two x values: one bar slot (a day when there is one x only). */
export function xStep(x: readonly number[]): number {
  let step = Number.POSITIVE_INFINITY;
  for (let i = 1; i < x.length; i++) step = Math.min(step, (x[i] as number) - (x[i - 1] as number));
  return Number.isFinite(step) && step > 0 ? step : 86_400;
}

/**
 * Series with the same `stack` share a group and are stacked in the order given (positive values
 * upwards from zero, negative ones downwards); every other series is a group of its own.
 */
export function barLayout(spec: ChartSpec): BarLayout {
  const groupOf = new Map<string, number>();
  const group = spec.series.map((s, i) => {
    const key = s.stack === undefined ? `#${i}` : `stack:${s.stack}`;
    if (!groupOf.has(key)) groupOf.set(key, groupOf.size);
    return groupOf.get(key) as number;
  });
  const above = new Map<number, number[]>();
  const below = new Map<number, number[]>();
  const bottoms: (number | null)[][] = [];
  const tops: (number | null)[][] = [];
  spec.series.forEach((s, i) => {
    const g = group[i] as number;
    const up = above.get(g) ?? spec.x.map(() => 0);
    const down = below.get(g) ?? spec.x.map(() => 0);
    above.set(g, up);
    below.set(g, down);
    bottoms.push(
      s.values.map((v, j) => (v === null ? null : v >= 0 ? (up[j] as number) : (down[j] as number))),
    );
    tops.push(s.values.map((v, j) => (v === null ? null : stackOn(v >= 0 ? up : down, j, v))));
  });
  return { group, groups: groupOf.size, bottoms, tops };
}

function stackOn(base: number[], j: number, v: number): number {
  base[j] = (base[j] as number) + v;
  return base[j];
}

/** The lowest and highest edge of any bar, zero included (bars grow from it). */
export function barExtent(layout: BarLayout): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const edges of [...layout.bottoms, ...layout.tops])
    for (const v of edges) {
      if (v === null) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  return [lo, hi];
}

// The facet units are a const enum in uPlot's types, which isolated modules cannot read: 1 is "scale value".
const SCALE_VALUE = 1 as uPlot.Series.BarsPathBuilderFacetUnit;

/** uPlot's bars for series `i`: placed in its group's part of the slot, from its bottom to its top. */
export function barPaths(spec: ChartSpec, layout: BarLayout, i: number): uPlot.Series.PathBuilder {
  const slot = xStep(spec.x) * SLOT;
  const width = slot / layout.groups;
  const g = layout.group[i] as number;
  const x0 = spec.x.map((t) => t - slot / 2 + g * width);
  const facet = (values: (number | null)[]) => ({ unit: SCALE_VALUE, values: () => values });
  return uPlot.paths.bars!({
    gap: 1,
    disp: {
      x0: facet(x0),
      size: facet([width]),
      y0: facet(layout.bottoms[i] as (number | null)[]),
      y1: facet(layout.tops[i] as (number | null)[]),
    },
  });
}
