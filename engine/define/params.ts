import { z } from "zod";
import { type Issue, ValidationError } from "../../core/errors.js";
import type { ParamDef } from "../../schema/pipeline.js";

export type ParamValue = string | number | boolean;
export type ParamValues = Record<string, ParamValue | ParamValue[]>;

const scalar = z.union([z.string().max(60_000), z.number(), z.boolean()]);

/** Params as a JSON caller (the server, an MCP client) gives them: a value or a list per name. */
export const paramsRequestSchema = z
  .record(z.string().max(100), z.union([scalar, z.array(scalar).max(10_000)]))
  .default({});

/** One list of values per param, as `resolveParams` and the runner take them. */
export function paramLists(given: Record<string, ParamValue | ParamValue[]>): Record<string, ParamValue[]> {
  return Object.fromEntries(Object.entries(given).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

/**
 * Parses repeated `--param name=value` flags; each occurrence adds a value.
 *
 * @example parseParamFlags(["keyword=usb hub", "keyword=desk lamp", "pages=2"])
 * // { keyword: ["usb hub", "desk lamp"], pages: ["2"] }
 */
export function parseParamFlags(flags: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const issues: Issue[] = [];
  flags.forEach((flag, i) => {
    const eq = flag.indexOf("=");
    const name = eq > 0 ? flag.slice(0, eq).trim() : "";
    if (!/^[a-zA-Z][a-zA-Z0-9_]{0,62}$/.test(name)) {
      issues.push({ path: [i], message: `"${flag.slice(0, 80)}" is not name=value` });
      return;
    }
    const list = out[name] ?? [];
    list.push(flag.slice(eq + 1));
    out[name] = list;
  });
  if (issues.length) throw new ValidationError("--param", issues);
  return out;
}

/** `today`, `yesterday`, `today-7`, or a yyyy-mm-dd date → yyyy-mm-dd (UTC). */
export function resolveDate(value: string, now = new Date()): string | undefined {
  const rel = /^(today|yesterday)(?:([+-])(\d{1,4}))?$/.exec(value.trim());
  if (rel) {
    const base = rel[1] === "yesterday" ? -1 : 0;
    const offset = rel[3] ? Number(rel[3]) * (rel[2] === "-" ? -1 : 1) : 0;
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + base + offset));
    return d.toISOString().slice(0, 10);
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value.trim() ? value.trim() : undefined;
}

function convert(raw: ParamValue, def: ParamDef): ParamValue | string {
  const text = String(raw).trim();
  switch (def.type) {
    case "integer": {
      const n = typeof raw === "number" ? raw : /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n)) return `"${text.slice(0, 40)}" is not a whole number`;
      if (def.min !== undefined && n < def.min) return `${n} is below the minimum ${def.min}`;
      if (def.max !== undefined && n > def.max) return `${n} is above the maximum ${def.max}`;
      return n;
    }
    case "number": {
      const n = typeof raw === "number" ? raw : text === "" ? Number.NaN : Number(text);
      if (!Number.isFinite(n)) return `"${text.slice(0, 40)}" is not a number`;
      if (def.min !== undefined && n < def.min) return `${n} is below the minimum ${def.min}`;
      if (def.max !== undefined && n > def.max) return `${n} is above the maximum ${def.max}`;
      return n;
    }
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (/^(true|yes|1)$/i.test(text)) return true;
      if (/^(false|no|0)$/i.test(text)) return false;
      return `"${text.slice(0, 40)}" is not true or false`;
    case "date":
      return (
        resolveDate(text) ?? `"${text.slice(0, 40)}" is not a date (yyyy-mm-dd, today, yesterday, today-N)`
      );
    case "string":
      if (def.enum && !def.enum.includes(text))
        return `"${text.slice(0, 40)}" is not one of ${def.enum.join(", ")}`;
      return text;
  }
}

// A returned string means a problem; converted values are tagged so a string value is not mistaken for one.
function convertTagged(raw: ParamValue, def: ParamDef): { ok: ParamValue } | { error: string } {
  if (def.type === "string") {
    const text = String(raw).trim();
    if (def.enum && !def.enum.includes(text))
      return { error: `"${text.slice(0, 40)}" is not one of ${def.enum.join(", ")}` };
    return { ok: text };
  }
  const v = convert(raw, def);
  return typeof v === "string" && def.type !== "date"
    ? { error: v }
    : def.type === "date" && typeof v === "string" && !/^\d{4}-\d{2}-\d{2}$/.test(v)
      ? { error: v }
      : { ok: v };
}

/**
 * An input value (input values arrive as text: from params, files, SQL, sheets) typed as the param
 * of the same name is declared, so `"{{connection}}"` fills an integer member with an integer.
 * Without such a declaration the text is kept. Throws ValidationError when it does not convert.
 *
 * @example typedInput("5", { type: "integer" }) // 5
 */
export function typedInput(value: string, def: ParamDef | undefined): ParamValue {
  if (!def || def.type === "string") return value;
  const r = convertTagged(value, def);
  if ("error" in r) throw new ValidationError("input", [{ path: [], message: r.error }]);
  return r.ok;
}

/** Longest value of all: an identifier list (contract 8: 60000 characters). */
const MAX_PARAM = 60_000;

/**
 * What is wrong with one given value before it is converted: empty (a given value must say
 * something; leave the param out instead), a NUL byte (no driver or API takes one), too long.
 */
function valueProblem(v: ParamValue, def: ParamDef): string | undefined {
  if (typeof v !== "string") return undefined;
  if (v.includes("\0")) return "value contains a NUL byte";
  if (v.length > MAX_PARAM) return `value is longer than ${MAX_PARAM} characters`;
  if (def.type === "string" && v.trim() === "") return "value is empty; give a value or leave the param out";
  return undefined;
}

/**
 * The defaults a pipeline file declares that its params' own types refuse (`type: integer`,
 * `default: two`): a pipeline-file mistake, found when the file is read, not when a run needs it.
 */
export function defaultIssues(defs: Record<string, ParamDef>): Issue[] {
  return Object.entries(defs).flatMap(([name, def]) => {
    if (def.default === undefined) return [];
    const defaults = Array.isArray(def.default) ? def.default : [def.default];
    return defaults.flatMap((d) => {
      const r = convertTagged(d, def);
      return "error" in r
        ? [
            {
              path: ["params", name, "default"],
              message: `default of param ${name}: ${r.error} (its type is ${def.type})`,
            },
          ]
        : [];
    });
  });
}

/**
 * Checks given params against a pipeline's declarations: names, types, enums, bounds, required
 * ones, single values for non-repeatable ones; fills defaults. Every problem is reported at once.
 */
export function resolveParams(
  defs: Record<string, ParamDef>,
  given: Record<string, ParamValue[]>,
  source = "--param",
): ParamValues {
  const issues: Issue[] = [];
  const out: ParamValues = {};
  for (const [name, values] of Object.entries(given)) {
    const def = defs[name];
    if (!def) {
      const known = Object.keys(defs);
      issues.push({
        path: [name],
        message: `unknown param; this pipeline takes ${known.length ? known.join(", ") : "none"}`,
      });
      continue;
    }
    if (!def.repeatable && values.length > 1) {
      issues.push({ path: [name], message: "takes one value, but was given several" });
      continue;
    }
    const converted: ParamValue[] = [];
    for (const v of values) {
      const problem = valueProblem(v, def);
      if (problem) {
        issues.push({ path: [name], message: problem });
        continue;
      }
      const r = convertTagged(v, def);
      if ("error" in r) issues.push({ path: [name], message: r.error });
      else converted.push(r.ok);
    }
    // An empty @file (or a list of nothing) leaves a required param without a value.
    if (def.required && converted.length === 0 && !issues.some((i) => i.path[0] === name)) {
      issues.push({
        path: [name],
        message: "is required, but no value was given (the list or file is empty)",
      });
      continue;
    }
    out[name] = def.repeatable ? converted : (converted[0] as ParamValue);
  }
  for (const [name, def] of Object.entries(defs)) {
    if (out[name] !== undefined || issues.some((i) => i.path[0] === name)) continue;
    if (def.default !== undefined) {
      const defaults = Array.isArray(def.default) ? def.default : [def.default];
      const conv = defaults.map((d) => convertTagged(d, def)).flatMap((r) => ("ok" in r ? [r.ok] : []));
      out[name] = def.repeatable ? conv : (conv[0] as ParamValue);
    } else if (def.required) {
      issues.push({ path: [name], message: "is required" });
    }
  }
  if (issues.length) throw new ValidationError(source, issues);
  return out;
}
