import type { z } from "zod";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas a value at `path` may match (wrappers unwrapped, every union alternative kept). */
function objectsAt(schema: z.ZodType, path: (string | number)[]): Def[] {
  const d = defOf(schema);
  const inner = d.innerType ?? (d.type === "pipe" ? d.in : undefined);
  if (inner) return objectsAt(inner, path);
  if (d.type === "union") return (d.options ?? []).flatMap((o) => objectsAt(o, path));
  if (path.length === 0) return d.type === "object" ? [d] : [];
  const [head, ...rest] = path;
  if (d.type === "object") {
    const member = d.shape?.[String(head)];
    return member ? objectsAt(member, rest) : [];
  }
  const next = d.type === "record" ? d.valueType : d.type === "array" ? d.element : undefined;
  return next ? objectsAt(next, rest) : [];
}

/**
 * The members an object in a schema may have at a path of a value, for "unknown member … did you
 * mean" messages.
 *
 * @example objectKeysAt(pipelineSchema, ["paginate"]) // ["member", "style", "start", "step", "maxPages", "total"]
 */
export function objectKeysAt(schema: z.ZodType, path: (string | number)[]): string[] {
  return [...new Set(objectsAt(schema, path).flatMap((d) => Object.keys(d.shape ?? {})))];
}
