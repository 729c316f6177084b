import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = (name: string) => fileURLToPath(new URL(`../../dist/web/${name}`, import.meta.url));
const UPLOT = createRequire(import.meta.url).resolve("uplot/dist/uPlot.esm.js");

/** What a CSP without 'unsafe-eval' refuses to run. */
const EVAL = /\beval\s*\(|new\s+Function\b|\bFunction\s*\(/;

describe("the console's bundle (built by the global setup, as by prepare)", () => {
  it("is one ES module with uPlot in it, and imports nothing", () => {
    const js = readFileSync(dist("console.js"), "utf8");
    expect(js.length).toBeGreaterThan(20_000);
    expect(js).toContain("u-legend");
    expect(js).not.toMatch(/\bimport\s*[\w{*"']|\bimport\s*\(/);
    expect(js).not.toContain("sourceMappingURL");
  });

  it("holds neither eval nor new Function, and nor does uPlot itself", () => {
    expect(readFileSync(UPLOT, "utf8")).not.toMatch(EVAL);
    expect(readFileSync(dist("console.js"), "utf8")).not.toMatch(EVAL);
  });

  it("has one stylesheet: uPlot's, then the console's", () => {
    const css = readFileSync(dist("console.css"), "utf8");
    const uplot = css.indexOf(".u-legend");
    const ours = css.indexOf("nav.top");
    expect(uplot).toBeGreaterThanOrEqual(0);
    expect(ours).toBeGreaterThan(uplot);
    expect(existsSync(dist("console.js.map"))).toBe(false);
  });
});
