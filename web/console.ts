// The console's one script (dist/web/console.js): the server's pages are complete without it; it
// shows numbers and times in the reader's locale and draws the charts from the data in the page.
import { drawCharts } from "./charts.js";
import { formatNumbers, formatTimes } from "./format.js";

function start(): void {
  formatNumbers(document);
  formatTimes(document);
  drawCharts(document);
  // The browser tests wait for this, and measure the first render up to it.
  document.documentElement.dataset["ready"] = "1";
}

// A module runs after parsing anyway; the check keeps it right if the page ever loads it late.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
else start();
