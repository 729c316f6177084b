import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../core/errors.js";
import type { ParamValues } from "../../../engine/define/params.js";
import { loadPipeline } from "../../../engine/define/pipeline-file.js";
import { renderRequest } from "../../../engine/define/template.js";
import {
  addDays,
  type DateWindow,
  MAX_WINDOWS,
  resolveWindows,
  windowVars,
} from "../../../engine/define/windows/date-range.js";
import { keyWindows, windowState } from "../../../engine/define/windows/window-state.js";
import { pipelineFrom } from "../fixtures.js";
import { datedYaml } from "./fixtures.js";

const days = (ws: DateWindow[]) => ws.map((w) => (w.start === w.end ? w.start : `${w.start}..${w.end}`));

/** The error a pipeline file gets when it is read. */
function fileError(yaml: string): ValidationError {
  try {
    pipelineFrom(yaml);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error("the file was accepted");
}

describe("date windows: the range cut into windows", () => {
  const p = pipelineFrom(datedYaml());
  const cut = (params: ParamValues) => resolveWindows(p, { q: ["x"], ...params }).windows;

  it("step 1d: one window per day, both ends included (a 90-day backfill is 90 windows)", () => {
    const ws = cut({ start: "2025-01-01", end: "2025-03-31", step: "1d" });
    expect(ws).toHaveLength(90);
    expect(ws[0]).toMatchObject({ start: "2025-01-01", end: "2025-01-01" });
    expect(ws.at(-1)).toMatchObject({ start: "2025-03-31", end: "2025-03-31" });
    expect(days(cut({ start: "2024-02-28", end: "2024-03-01", step: "1d" }))).toEqual([
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
    ]);
  });

  it("step 7d and 2w from the start, calendar months, range; the last window cut at the end", () => {
    expect(days(cut({ start: "2025-01-01", end: "2025-01-20", step: "7d" }))).toEqual([
      "2025-01-01..2025-01-07",
      "2025-01-08..2025-01-14",
      "2025-01-15..2025-01-20",
    ]);
    expect(days(cut({ start: "2025-01-01", end: "2025-01-20", step: "2w" }))).toEqual([
      "2025-01-01..2025-01-14",
      "2025-01-15..2025-01-20",
    ]);
    expect(days(cut({ start: "2025-01-15", end: "2025-04-10", step: "1mo" }))).toEqual([
      "2025-01-15..2025-01-31",
      "2025-02-01..2025-02-28",
      "2025-03-01..2025-03-31",
      "2025-04-01..2025-04-10",
    ]);
    expect(days(cut({ start: "2025-01-01", end: "2025-12-31", step: "3mo" }))).toHaveLength(4);
    expect(days(cut({ start: "2025-01-01", end: "2025-12-31", step: "range" }))).toEqual([
      "2025-01-01..2025-12-31",
    ]);
    expect(days(cut({ start: "2025-01-01", end: "2025-01-01", step: "1mo" }))).toEqual(["2025-01-01"]);
  });

  it("relative days resolve from today (UTC)", () => {
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const r = resolveWindows(p, { q: ["x"], start: "today-2", end: "yesterday", step: "1d" }, now);
    expect(days(r.windows)).toEqual([addDays(today, -2), addDays(today, -1)]);
    expect(r.lookbackDays).toBe(3);
  });

  it("templates read the window's days, as ISO dates and as yyyymmdd", () => {
    const [w] = cut({ start: "2025-03-09", end: "2025-03-09", step: "1d" });
    expect(renderRequest(p.request, { q: "x", ...windowVars(w!) })).toEqual({
      q: "x",
      after: "publication:20250309",
      before: "publication:20250309",
    });
    expect(
      renderRequest({ startDate: "{{window.start}}", endDate: "{{ window.end }}" }, windowVars(w!)),
    ).toEqual({ startDate: "2025-03-09", endDate: "2025-03-09" });
  });

  it("a wrong value is a ValidationError naming the member and the param: start after end, not a date, step 2x, too many windows", () => {
    const issues = (params: ParamValues) => {
      try {
        cut(params);
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).exitCode).toBe(2);
        return (err as ValidationError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      }
      throw new Error("accepted");
    };
    expect(issues({ start: "2025-03-10", end: "2025-03-01", step: "1d" })).toEqual([
      "window.start: the range starts 2025-03-10, after its end 2025-03-01",
    ]);
    expect(issues({ start: "2025-03-01", end: "2025-03-10", step: "2x" })).toEqual([
      'window.step: "2x" (from param step) is not a window length: use Nd, Nw, Nmo (such as 1d, 7d, 1mo) or range',
    ]);
    expect(issues({ end: "2025-03-10", step: "1d" })).toEqual([
      "window.start: {{start}} needs one value (give --param start=…)",
    ]);
    expect(issues({ start: "1990-01-01", end: "2025-03-10", step: "1d" })[0]).toContain(
      `more than ${MAX_WINDOWS}: use a longer step or a shorter range`,
    );
  });
});

describe("date windows: identity and what a run asks", () => {
  const p = pipelineFrom(datedYaml());
  const keyed = (params: ParamValues, values = ["x"]) =>
    keyWindows(p, params, values, resolveWindows(p, { q: values, ...params }).windows);

  it("a window's identity leaves out the window's own params: moving end keeps the earlier windows'", () => {
    const a = keyed({ q: ["x"], start: "2025-01-01", end: "2025-01-10", step: "1d" });
    const b = keyed({ q: ["x"], start: "2025-01-01", end: "2025-01-11", step: "1d" });
    expect(b.slice(0, 10).map((w) => w.key)).toEqual(a.map((w) => w.key));
    expect(new Set(a.map((w) => w.key)).size).toBe(10);
    // Other questions are other windows.
    const other = keyed({ q: ["y"], start: "2025-01-01", end: "2025-01-10", step: "1d" }, ["y"]);
    expect(other[0]!.key).not.toBe(a[0]!.key);
  });

  it("recorded windows are done, except the lookback's once the range has moved on", () => {
    const w = (day: string): DateWindow => ({ start: day, end: day, key: day });
    const asked = (through: string) => ({ askedThrough: through, runId: "r1" });
    const rule = { rangeEnd: "2025-04-01", lookbackDays: 3, runId: "r2" };
    expect(windowState(w("2025-04-01"), undefined, rule)).toBe("new");
    // Asked by a run whose range ended 2025-03-31: the last 3 days before it are asked again.
    for (const day of ["2025-03-29", "2025-03-30", "2025-03-31"])
      expect(windowState(w(day), asked("2025-03-31"), rule), day).toBe("again");
    expect(windowState(w("2025-03-28"), asked("2025-03-31"), rule)).toBe("done");
    // The same range end again: nothing to ask.
    expect(windowState(w("2025-03-31"), asked("2025-03-31"), { ...rule, rangeEnd: "2025-03-31" })).toBe(
      "done",
    );
    // Settled once asked by a run whose range ended at least 3 days after it.
    expect(windowState(w("2025-03-29"), asked("2025-04-01"), { ...rule, rangeEnd: "2025-04-05" })).toBe(
      "done",
    );
    // No lookback: recorded means done; this very run's record is done whatever else holds.
    expect(windowState(w("2025-03-31"), asked("2025-03-31"), { ...rule, lookbackDays: 0 })).toBe("done");
    expect(windowState(w("2025-03-31"), { askedThrough: "2025-03-31", runId: "r2" }, rule)).toBe("done");
    expect(windowState(w("2025-01-01"), asked("2025-03-31"), { ...rule, refresh: true })).toBe("again");
  });
});

describe("date windows: mistakes in the file are caught when it is read, with member path and line", () => {
  it("{{window.start}} in a pipeline without a window block", () => {
    const err = fileError(`name: no-window
skill: websearch-patent-search
params: { q: {} }
request:
  q: "{{q}}"
  after: "publication:{{window.start:yyyymmdd}}"
records: { path: results, table: t, mode: append, columns: { title: text } }
`);
    expect(err.message).toContain("pipeline.yaml");
    expect(err.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toEqual([
      "request.after: {{window.start:yyyymmdd}} reads a date window, but this pipeline has no window: block (window: { start, end, step }) (line 6)",
    ]);
  });

  it("a misspelt window name, a param the block names that is not declared", () => {
    const err = fileError(
      datedYaml({
        window: '{ start: "{{begin}}", end: "{{end}}" }',
        request: '  q: "{{q}}"\n  after: "publication:{{window.stat:yyyymmdd}}"',
      }),
    );
    const messages = err.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(messages[0]).toMatch(/^window\.start: \{\{begin\}\} is not defined.*\(line 9\)$/);
    expect(messages[1]).toMatch(
      /^request\.after: \{\{window\.stat:yyyymmdd\}\} is not defined \(did you mean "window\.start:yyyymmdd"\?\)/,
    );
  });

  it("step 2x, a lookback that is no number of days, literal dates out of order", () => {
    expect(fileError(datedYaml({ window: '{ start: "{{start}}", step: 2x }' })).message).toMatch(
      /window\.step: must be a window length such as "1d".*\(line 9\)/,
    );
    expect(fileError(datedYaml({ window: '{ start: "{{start}}", lookback: 3 }' })).message).toMatch(
      /window\.lookback: .*\(line 9\)/,
    );
    expect(fileError(datedYaml({ window: "{ start: 2025-03-10, end: 2025-03-01 }" })).message).toContain(
      "window.start: the range starts 2025-03-10, after its end 2025-03-01 (line 9)",
    );
    expect(fileError(datedYaml({ window: "{ start: 2025-02-30 }" })).message).toContain(
      'window.start: "2025-02-30" is not a date (yyyy-mm-dd)',
    );
  });

  it("a window no request member reads; replace without a key", () => {
    expect(fileError(datedYaml({ request: '  q: "{{q}}"' })).message).toContain(
      "window: no request member reads the window",
    );
    const replace = datedYaml({ mode: "replace" }).replace("  key: [query, after, position]\n", "");
    expect(fileError(replace).message).toContain("records.key: mode replace with a window needs a key");
  });

  it("the built-in windowed pipelines read", () => {
    for (const name of ["patent-search-by-date", "ads-sp-audience", "ads-sp-search-impression-share"]) {
      expect(loadPipeline(name).window, name).toBeDefined();
    }
    const p = loadPipeline("patent-search-by-date");
    const [w] = resolveWindows(p, { q: ["x"], start: "2025-02-03", end: "2025-02-20", step: "1mo" }).windows;
    expect(renderRequest(p.request, { q: "x", num: 10, ...windowVars(w!) })).toEqual({
      q: "x",
      num: 10,
      after: "publication:20250203",
      before: "publication:20250220",
    });
  });
});
