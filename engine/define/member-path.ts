/** Member paths of a pipeline file (`records.path`, `from:`, `nextPage`): `a.b.c` read from an answer. */

export function getPath(value: unknown, path: string): unknown {
  return compilePath(path)(value);
}

/** A path split once into a getter: per record only property reads remain. */
export function compilePath(path: string): (value: unknown) => unknown {
  if (path === "." || path === "") return (v) => v;
  if (path.includes("[]")) return compileListPath(path);
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

/**
 * `a[].b`: the `b` of each element of the list `a`, as a list (elements without it left out; a
 * member that is no list gives undefined). `a.b[].c[].d` goes through lists at each `[]`.
 */
function compileListPath(path: string): (value: unknown) => unknown {
  const at = path.indexOf("[]");
  const head = compilePath(path.slice(0, at));
  const rest = path.slice(at + 2).replace(/^\./, "");
  const tail = rest === "" ? (v: unknown) => v : compilePath(rest);
  const spread = rest.includes("[]");
  return (v) => {
    const list = head(v);
    if (!Array.isArray(list)) return undefined;
    const out: unknown[] = [];
    for (const element of list) {
      const x = tail(element);
      if (x === undefined) continue;
      if (spread && Array.isArray(x)) out.push(...x);
      else out.push(x);
    }
    return out;
  };
}
