/** What the server puts in `<script type="application/json" id="ID">` for a chart (console-overview). */
export interface ChartSpec {
  kind: "bars" | "line" | "steps";
  /** Epoch seconds (UTC), ascending. */
  x: number[];
  series: SeriesSpec[];
  limits: LimitSpec[];
  /** For "steps": the names the values index. */
  categories: string[];
  yLabel: string | undefined;
}

interface SeriesSpec {
  label: string;
  values: (number | null)[];
  /** Series with the same key are stacked in one bar; others stand side by side. */
  stack: string | undefined;
}

interface LimitSpec {
  label: string;
  value: number;
}

const KINDS = new Set(["bars", "line", "steps"]);

/** A chart's spec read from its JSON, or an Error saying what is wrong with it. */
export function parseSpec(json: string): ChartSpec {
  const raw: unknown = JSON.parse(json);
  if (!isRecord(raw)) throw new Error("the spec is not an object");
  const kind = raw["kind"];
  if (typeof kind !== "string" || !KINDS.has(kind)) throw new Error(`unknown kind ${String(kind)}`);
  const x = numbers(raw["x"], "x");
  if (x.some((t, i) => i > 0 && t < (x[i - 1] as number))) throw new Error("x is not ascending");
  const series = list(raw["series"], "series").map((s, i) => seriesOf(s, i, x.length));
  if (!series.length) throw new Error("no series");
  const categories = raw["categories"] === undefined ? [] : strings(raw["categories"], "categories");
  if (kind === "steps" && !categories.length) throw new Error("a steps chart needs categories");
  const yLabel = raw["yLabel"];
  if (yLabel !== undefined && typeof yLabel !== "string") throw new Error("yLabel is not a string");
  const limits = raw["limits"] === undefined ? [] : list(raw["limits"], "limits").map(limitOf);
  return { kind: kind as ChartSpec["kind"], x, series, limits, categories, yLabel };
}

function seriesOf(raw: unknown, i: number, length: number): SeriesSpec {
  if (!isRecord(raw) || typeof raw["label"] !== "string") throw new Error(`series ${i} has no label`);
  const values = list(raw["values"], `series ${i} values`);
  if (values.length !== length) throw new Error(`series ${i} has ${values.length} values for ${length} x`);
  if (values.some((v) => v !== null && !isFiniteNumber(v))) throw new Error(`series ${i} has a non-number`);
  const stack = raw["stack"];
  if (stack !== undefined && typeof stack !== "string") throw new Error(`series ${i} stack is not a string`);
  return { label: raw["label"], values: values as (number | null)[], stack };
}

function limitOf(raw: unknown, i: number): LimitSpec {
  if (!isRecord(raw) || typeof raw["label"] !== "string" || !isFiniteNumber(raw["value"]))
    throw new Error(`limit ${i} needs a label and a number`);
  return { label: raw["label"], value: raw["value"] };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not a list`);
  return v;
}

function numbers(v: unknown, what: string): number[] {
  const items = list(v, what);
  if (!items.every(isFiniteNumber)) throw new Error(`${what} holds a non-number`);
  return items;
}

function strings(v: unknown, what: string): string[] {
  const items = list(v, what);
  if (!items.every((s): s is string => typeof s === "string")) throw new Error(`${what} holds a non-string`);
  return items;
}
