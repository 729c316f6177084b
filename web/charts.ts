import uPlot from "uplot";
import { chartOf } from "./chart-options.js";
import { parseSpec } from "./chart-spec.js";

/** The plotting area's height in CSS pixels (the legend comes below it). */
const HEIGHT = 240;

/**
 * Draws every `figure.chart[data-chart=ID]` from its `script#ID` spec. A chart that cannot be drawn
 * keeps its data table, opened, and says so once on the console; the others are drawn all the same.
 * Returns when every chart has had its first draw (uPlot draws synchronously here).
 */
export function drawCharts(root: Document): void {
  for (const figure of root.querySelectorAll<HTMLElement>("figure.chart[data-chart]"))
    drawFigure(root, figure);
}

function drawFigure(root: Document, figure: HTMLElement): void {
  const id = figure.dataset["chart"] ?? "";
  const plot = figure.querySelector<HTMLElement>(".plot");
  try {
    if (!plot) throw new Error("the figure has no .plot");
    mount(plot, parseSpec(specText(root, id)));
  } catch (err) {
    plot?.querySelector(".uplot")?.remove();
    figure.classList.add("chart-failed");
    const details = figure.querySelector("details");
    if (details) details.open = true;
    console.error(`skillsync console: chart "${id}" not drawn: ${err instanceof Error ? err.message : err}`);
  }
}

function specText(root: Document, id: string): string {
  const script = id ? root.getElementById(id) : null;
  if (!(script instanceof HTMLScriptElement) || script.type !== "application/json")
    throw new Error(`no <script type="application/json" id="${id}">`);
  return script.textContent ?? "";
}

/**
 * The chart drawn into `plot` at its width, and drawn again at each new width of it (a phone
 * turned, a window resized). Drawing is batched into the constructor, so an error in it is thrown
 * here rather than later in a microtask.
 */
function mount(plot: HTMLElement, spec: ReturnType<typeof parseSpec>): void {
  const { opts, data } = chartOf(spec, widthOf(plot), HEIGHT);
  const chart = new uPlot(opts, data, (u, init) => {
    plot.append(u.root);
    u.batch(() => init());
  });
  new ResizeObserver(() => {
    const width = widthOf(plot);
    if (width !== chart.width) chart.setSize({ width, height: HEIGHT });
  }).observe(plot);
}

/** The plot's content width in whole pixels (at least enough for the axes). */
const widthOf = (plot: HTMLElement): number => Math.max(120, Math.floor(plot.clientWidth));
