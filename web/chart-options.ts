import uPlot from "uplot";
import { timeText, xAxis, yAxis } from "./chart-axes.js";
import { barExtent, barLayout, barPaths, xStep } from "./chart-bars.js";
import type { ChartSpec } from "./chart-spec.js";
import { numberFormat } from "./locale.js";

/** Series colours, in order: distinct hues, each at least 4.5:1 against white. */
const PALETTE = ["#0b5cad", "#b04a00", "#1b7a3a", "#7b3fa0", "#00707a", "#a3195b", "#5c4a00", "#444c56"];
/**
 * A series named for a run's outcome takes its badge's colour (console.css), so "failed" is never
 * drawn in the green that "succeeded" means elsewhere on the page. Each at least 4.8:1 on white.
 */
const OUTCOME_COLOURS = new Map([
  ["succeeded", "#1b7a3a"],
  ["warnings", "#9a6700"],
  ["failed", "#a40e26"],
  ["ceiling", "#6639ba"],
  ["interrupted", "#57606a"],
  ["running", "#0550ae"],
  ["paused", "#444c56"],
]);
/** Limits are drawn dashed, in colours that no series uses. */
const LIMIT_PALETTE = ["#b3001b", "#3d3d3d", "#6d3200"];

/** uPlot's options and data for a spec, at a size. */
export function chartOf(spec: ChartSpec, width: number, height: number) {
  const text = timeText(spec);
  const opts: uPlot.Options = {
    width,
    height,
    series: [
      { value: (_u, t) => (t === null ? "–" : text.point(t)) },
      ...valueSeries(spec),
      ...limitSeries(spec),
    ],
    // Fixed ranges, so zooming by dragging is off: the data never changes once drawn.
    scales: { x: { time: true, range: xRange(spec) }, y: { range: yRange(spec) } },
    axes: [xAxis(text), yAxis(spec)],
    cursor: { points: { show: spec.kind !== "bars" }, drag: { x: false, y: false } },
    legend: { live: true },
  };
  if (text.tzDate) opts.tzDate = text.tzDate;
  const data: uPlot.AlignedData = [
    spec.x,
    ...spec.series.map((s) => s.values),
    ...spec.limits.map((l) => spec.x.map(() => l.value)),
  ];
  return { opts, data };
}

function valueSeries(spec: ChartSpec): uPlot.Series[] {
  const format = numberFormat();
  const value =
    spec.kind === "steps"
      ? (_u: uPlot, v: number | null) => (v === null ? "–" : (spec.categories[v] ?? format.format(v)))
      : (_u: uPlot, v: number | null) => (v === null ? "–" : format.format(v));
  const layout = spec.kind === "bars" ? barLayout(spec) : undefined;
  return spec.series.map((s, i) => {
    const colour = OUTCOME_COLOURS.get(s.label) ?? (PALETTE[i % PALETTE.length] as string);
    const series: uPlot.Series = { label: s.label, stroke: colour, width: 2, value };
    if (layout)
      return { ...series, width: 0, fill: colour, paths: barPaths(spec, layout, i), points: { show: false } };
    const paths = spec.kind === "steps" ? uPlot.paths.stepped!({ align: 1 }) : uPlot.paths.linear!();
    return { ...series, paths, points: { show: true, size: 6, fill: colour, stroke: colour } };
  });
}

function limitSeries(spec: ChartSpec): uPlot.Series[] {
  const format = numberFormat();
  return spec.limits.map((l, i) => ({
    label: l.label,
    stroke: LIMIT_PALETTE[i % LIMIT_PALETTE.length] as string,
    width: 2,
    dash: [8, 5],
    paths: acrossThePlot(l.value),
    points: { show: false },
    value: () => format.format(l.value),
  }));
}

/** A limit's line from the plot's left edge to its right, whatever x the data starts and ends at. */
function acrossThePlot(value: number): uPlot.Series.PathBuilder {
  return (u) => {
    const y = u.valToPos(value, "y", true);
    const line = new Path2D();
    line.moveTo(u.bbox.left, y);
    line.lineTo(u.bbox.left + u.bbox.width, y);
    return { stroke: line, fill: null, clip: null, flags: 0 };
  };
}

/** Bars get half a slot either side, so the first and last day are whole; one point gets a slot. */
function xRange(spec: ChartSpec): uPlot.Range.MinMax {
  const first = spec.x[0];
  const last = spec.x[spec.x.length - 1];
  if (first === undefined || last === undefined) return [0, 86_400];
  const half = xStep(spec.x) / 2;
  return spec.kind === "bars" || first === last ? [first - half, last + half] : [first, last];
}

/** The y scale holds every value and limit: bars from zero, stacked bars to their tops, steps to every category. */
function yRange(spec: ChartSpec): uPlot.Range.MinMax {
  if (spec.kind === "steps") return [-0.5, spec.categories.length - 0.5];
  const limits = spec.limits.map((l) => l.value);
  if (spec.kind === "bars") {
    const [lo, hi] = barExtent(barLayout(spec));
    const top = limits.reduce((a, v) => Math.max(a, v), hi);
    const bottom = limits.reduce((a, v) => Math.min(a, v), lo);
    return top === bottom ? [0, 1] : [bottom, top + (top - bottom) * 0.08];
  }
  const values = [...spec.series.flatMap((s) => s.values.filter((v): v is number => v !== null)), ...limits];
  if (!values.length) return [0, 1];
  const lo = values.reduce((a, v) => Math.min(a, v));
  const hi = values.reduce((a, v) => Math.max(a, v));
  return uPlot.rangeNum(lo, hi, 0.1, true);
}
