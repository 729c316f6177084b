/** Member paths of a pipeline file (`records.path`, `from:`, `nextPage`): `a.b.c` read from an answer. */

export function getPath(value: unknown, path: string): unknown {
  return compilePath(path)(value);
}

/** A path split once into a getter: per record only property reads remain. */
export function compilePath(path: string): (value: unknown) => unknown {
  if (path === "." || path === "") return (v) => v;
  const parts = path.split(".");
  // Own members only: a path never reads an object's prototype (`__proto__`, `constructor`…).
  if (parts.length === 1) {
    return (v) =>
      v !== null && typeof v === "object" && Object.hasOwn(v, path)
        ? (v as Record<string, unknown>)[path]
        : undefined;
  }
  return (v) => {
    let cur = v;
    for (const part of parts) {
      if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur;
  };
}
