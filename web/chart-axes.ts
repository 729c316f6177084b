import uPlot from "uplot";
import type { ChartSpec } from "./chart-spec.js";
import { type DateFormats, dateFormats, isDaySeries, numberFormat } from "./locale.js";

const TEXT = "#1f2328";
const GRID = "#d8dee4";
const TICKS = "#8c959f";
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const DAY = 86_400;
/** Per-day data is ticked at whole days only (never at noon between two bars). */
const DAY_STEPS = [1, 2, 3, 7, 14, 28, 56, 91, 182, 364].map((d) => d * DAY);

/** What the x axis and the legend say about a point in time, in the reader's locale. */
export interface TimeText {
  days: boolean;
  formats: DateFormats;
  /** The legend's x value under the cursor. */
  point(t: number): string;
  /** Ticks at whole UTC days for per-day data (else the reader's local days). */
  tzDate: ((t: number) => Date) | undefined;
}

export function timeText(spec: ChartSpec): TimeText {
  const days = isDaySeries(spec.x);
  const formats = dateFormats(days);
  const at = (t: number) => new Date(t * 1000);
  return {
    days,
    formats,
    point: (t) => (days ? formats.day : formats.moment).format(at(t)),
    tzDate: days ? (t) => uPlot.tzDate(at(t), "Etc/UTC") : undefined,
  };
}

/**
 * The x axis: dates in the reader's locale; ticks less than a day apart show the time of day,
 * and the day where one begins. Ticks are spaced by the width of a date label, so none overlap.
 */
export function xAxis(text: TimeText): uPlot.Axis {
  const { day, clock } = text.formats;
  const widest = Math.max(...[0, 4, 8].map((m) => textWidth(day.format(new Date(Date.UTC(2026, m, 28))))));
  const axis: uPlot.Axis = {
    ...style(),
    space: Math.ceil(widest) + 24,
    values: (_u, splits) => {
      const dense = splits.length > 1 && (splits[1] as number) - (splits[0] as number) < DAY;
      return splits.map((t) => {
        const at = new Date(t * 1000);
        const midnight = at.getHours() === 0 && at.getMinutes() === 0;
        return dense && !midnight ? clock.format(at) : day.format(at);
      });
    },
  };
  if (text.days) axis.incrs = DAY_STEPS;
  return axis;
}

/** The y axis: numbers in the reader's locale, or a steps chart's category names at their indices. */
export function yAxis(spec: ChartSpec): uPlot.Axis {
  const axis: uPlot.Axis = { ...style(), size: fitLabels };
  if (spec.yLabel !== undefined) axis.label = spec.yLabel;
  if (spec.kind === "steps") {
    axis.splits = () => spec.categories.map((_c, i) => i);
    axis.values = (_u, splits) => splits.map((i) => spec.categories[i] ?? "");
    return axis;
  }
  const format = numberFormat();
  axis.values = (_u, splits) => splits.map((v) => format.format(v));
  return axis;
}

function style(): uPlot.Axis {
  return {
    stroke: TEXT,
    font: FONT,
    labelFont: FONT,
    grid: { stroke: GRID, width: 1 },
    ticks: { stroke: TICKS, width: 1 },
  };
}

/** The y axis as wide as its longest label (category names and formatted numbers outgrow uPlot's 50 px). */
function fitLabels(u: uPlot, values: string[] | null, axisIdx: number): number {
  const longest = (values ?? []).reduce((a, v) => Math.max(a, textWidth(v)), 0);
  const label = u.axes[axisIdx]?.label === undefined ? 0 : 22;
  return Math.ceil(longest) + 16 + label;
}

/** A canvas of its own for measuring: uPlot caches its context's font, so its context is left alone. */
let measurer: CanvasRenderingContext2D | null | undefined;

/** How wide `text` is in the axes' font, in CSS pixels. */
function textWidth(text: string): number {
  if (measurer === undefined) {
    measurer = document.createElement("canvas").getContext("2d");
    if (measurer) measurer.font = FONT;
  }
  return measurer ? measurer.measureText(text).width : text.length * 7;
}
