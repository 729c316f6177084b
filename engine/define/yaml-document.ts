import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { fromZodIssues, type Issue, ValidationError } from "../../core/errors.js";
import { objectKeysAt } from "../../schema/keys.js";

/** What else a file's settings must satisfy once the schema accepts them (cross-member rules). */
type MoreIssues<T> = (data: T) => Issue[];

/**
 * A YAML settings file (a pipeline, a watch) read against its schema: every problem is reported at
 * once with its path inside the file and its line, unknown members with a did-you-mean, as
 * `ValidationError` for `source` (exit 2).
 */
export function parseYamlWith<S extends z.ZodType>(
  text: string,
  source: string,
  schema: S,
  more: MoreIssues<z.infer<S>> = () => [],
  reword: (issue: Issue) => Issue = (issue) => issue,
): z.infer<S> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ValidationError(
      source,
      // With prettyErrors the first line already ends "at line L, column C".
      doc.errors.map((e) => ({
        path: [],
        message: (e.message.split("\n")[0] ?? e.message).replace(/:$/, ""),
      })),
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    // An alias bomb (aliases expanding into millions of nodes) is refused by the YAML reader.
    throw new ValidationError(source, [{ path: [], message: (err as Error).message }]);
  }
  const parsed = schema.safeParse(value);
  const issues: Issue[] = parsed.success
    ? more(parsed.data)
    : fromZodIssues(parsed.error.issues, {
        input: value,
        knownKeys: (path) => objectKeysAt(schema, path),
      }).map(reword);
  if (!parsed.success || issues.length > 0) {
    throw new ValidationError(
      source,
      issues.map((issue) => {
        const line = lineOf(doc, lineCounter, issue.path);
        return line === undefined ? issue : { ...issue, message: `${issue.message} (line ${line})` };
      }),
    );
  }
  return parsed.data;
}

/**
 * The line of the member at `path`: its key's line when it has one (so an unknown top-level key is
 * found where it is written), else the nearest enclosing member's.
 */
function lineOf(doc: Document, lineCounter: LineCounter, path: (string | number)[]): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const parent = n === 0 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    const node =
      n === 0
        ? doc.contents
        : isMap(parent)
          ? parent.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(path[n - 1]))
              ?.key
          : doc.getIn(path.slice(0, n), true);
    const offset = isNode(node) && node.range ? node.range[0] : undefined;
    if (offset !== undefined) return lineCounter.linePos(offset).line;
  }
  return undefined;
}
