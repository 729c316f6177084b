import type { ParamValue } from "./params.js";

// A name: a param (`seed`), or a dotted one with a format (`window.start:yyyymmdd`, define/windows/date-range.ts).
const NAME = String.raw`([a-zA-Z][a-zA-Z0-9_]*(?:\.[a-zA-Z][a-zA-Z0-9_]*)*(?::[a-zA-Z0-9]+)?)`;
const WHOLE = new RegExp(String.raw`^\{\{\s*${NAME}\s*\}\}$`);
const ANY = new RegExp(String.raw`\{\{\s*${NAME}\s*\}\}`, "g");

export type Vars = Record<string, ParamValue | ParamValue[] | undefined>;

const OMIT = Symbol("omit");

function renderValue(value: unknown, vars: Vars): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole) {
      const v = vars[whole[1]!];
      return v === undefined ? OMIT : v;
    }
    let missing = false;
    const text = value.replace(ANY, (_, name: string) => {
      const v = vars[name];
      if (v === undefined) missing = true;
      return Array.isArray(v) ? v.join(",") : String(v ?? "");
    });
    return missing ? OMIT : text;
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v, vars)).filter((v) => v !== OMIT);
  if (value && typeof value === "object") return renderObject(value as Record<string, unknown>, vars);
  return value;
}

function renderObject(template: Record<string, unknown>, vars: Vars): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template)) {
    const r = renderValue(v, vars);
    if (r !== OMIT) out[k] = r;
  }
  return out;
}

/**
 * Fills a request template. `"{{name}}"` alone keeps the value's type (a number stays a number, a
 * list a list); inside text it is interpolated. A member whose params are unset is left out, so
 * optional members are sent only when given.
 *
 * @example renderRequest({ q: "{{q}}", num: "{{num}}", country: "{{country}}" }, { q: "lidar", num: 20 })
 * // { q: "lidar", num: 20 }
 */
export function renderRequest(template: Record<string, unknown>, vars: Vars): Record<string, unknown> {
  return renderObject(template, vars);
}

/** Resolves a number-or-`{{param}}` setting (maxPages, step). */
export function renderNumber(value: number | string | undefined, vars: Vars, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number") return value;
  const r = renderValue(value, vars);
  // An unset param renders as OMIT (a symbol), which Number() would throw on.
  const n = typeof r === "number" ? r : typeof r === "string" ? Number(r) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** One `{{name}}` in a template, with the path of the member that holds it. */
export interface TemplateUse {
  path: (string | number)[];
  name: string;
}

/**
 * Every `{{name}}` a template value uses, with where it is, so a name nothing defines is refused
 * before anything is sent instead of silently leaving its member out.
 *
 * @example templateUses({ q: "{{sed}}", n: 3 }, ["request"]) // [{ path: ["request", "q"], name: "sed" }]
 */
export function templateUses(value: unknown, path: (string | number)[] = []): TemplateUse[] {
  if (typeof value === "string") return [...value.matchAll(ANY)].map((m) => ({ path, name: m[1]! }));
  if (Array.isArray(value)) return value.flatMap((v, i) => templateUses(v, [...path, i]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => templateUses(v, [...path, k]));
  }
  return [];
}
