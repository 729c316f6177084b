// What the browser tests evaluate inside the page, as script text: the tests' own TypeScript has
// no DOM types (tsconfig's lib is the server's), and these run in the browser, not in Node.

/** Records every CSP violation the page meets in `__violations` (an init script, outside the CSP). */
export const RECORD_VIOLATIONS = `(() => {
  const seen = [];
  window.__violations = seen;
  document.addEventListener("securitypolicyviolation", (e) => seen.push(e.violatedDirective + " " + e.blockedURI));
})()`;

export const VIOLATIONS = "window.__violations";

/** Pixels of a chart's canvas in a colour, not the grey of axes and grid: its series were drawn. */
export const colouredPixels = (id: string) => `(() => {
  const canvas = document.querySelector('figure[data-chart=${JSON.stringify(id)}] .plot canvas');
  const ctx = canvas && canvas.getContext("2d");
  if (!ctx || !canvas.width) return 0;
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i], g = data[i + 1], b = data[i + 2];
    if (data[i + 3] > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
  }
  return n;
})()`;

/** Elements wider than the viewport, outside the scrolling regions, and how far the page scrolls sideways. */
export const OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const out = [...document.body.querySelectorAll("*")]
    .filter((el) => !el.closest(".scroll") || el.matches(".scroll"))
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .map((el) => el.tagName.toLowerCase() + "." + el.className);
  return { out, page: document.documentElement.scrollWidth - width };
})()`;

export const FIRST_CANVAS_WIDTH = 'document.querySelector(".plot canvas").getBoundingClientRect().width';

/** axe-core's colour-contrast rule over the page (axe's source evaluated before). */
export const AXE_CONTRAST = `axe.run({ runOnly: ["color-contrast"] }).then((r) => r.violations.map((v) =>
  v.id + ": " + v.nodes.map((n) => n.target.join(" ") + " " + n.failureSummary).join("; ")))`;
