import { type Issue, ValidationError } from "../../core/errors.js";
import type { ParamDef } from "../../schema/pipeline.js";

export type ParamValue = string | number | boolean;
export type ParamValues = Record<string, ParamValue | ParamValue[]>;

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
      if (String(v).length > 60_000) {
        issues.push({ path: [name], message: "value is longer than 60000 characters" });
        continue;
      }
      const r = convertTagged(v, def);
      if ("error" in r) issues.push({ path: [name], message: r.error });
      else converted.push(r.ok);
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
