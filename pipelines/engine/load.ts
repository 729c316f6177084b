import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isNode, LineCounter, parseDocument } from "yaml";
import { fromZodIssues, type Issue, ValidationError } from "../../core/errors.js";
import { type PipelineFile, pipelineSchema } from "../../schema/pipeline.js";

export interface LoadedPipeline extends PipelineFile {
  /** Absolute path of the file it came from. */
  file: string;
}

/** The folder of built-in pipeline files (found from the package root, so it works from source and from dist). */
export function builtinPipelineDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return join(dir, "pipelines");
}

export function listBuiltinPipelines(): string[] {
  return readdirSync(builtinPipelineDir())
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(builtinPipelineDir(), f))
    .sort();
}

/**
 * A pipeline argument is a file path, or the name of a built-in pipeline (`marketplace-search`).
 *
 * @example resolvePipelineRef("patent-search") // ".../pipelines/patent-search.yaml"
 */
export function resolvePipelineRef(ref: string): string {
  if (existsSync(ref)) return resolve(ref);
  const builtin = join(builtinPipelineDir(), extname(ref) ? basename(ref) : `${ref}.yaml`);
  if (/^[a-z0-9-]+(\.ya?ml)?$/.test(ref) && existsSync(builtin)) return builtin;
  throw new ValidationError("pipeline argument", [
    { path: [], message: `"${ref}" is neither a file nor a built-in pipeline (see \`skillsync pipelines\`)` },
  ]);
}

/** Reads and validates a pipeline file; errors carry the path inside the file and its line. */
export function loadPipeline(ref: string): LoadedPipeline {
  const file = resolvePipelineRef(ref);
  return parsePipeline(readFileSync(file, "utf8"), file);
}

export function parsePipeline(text: string, file: string): LoadedPipeline {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ValidationError(
      `pipeline file ${file}`,
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
    throw new ValidationError(`pipeline file ${file}`, [{ path: [], message: (err as Error).message }]);
  }
  const parsed = pipelineSchema.safeParse(value);
  if (!parsed.success) {
    const issues: Issue[] = fromZodIssues(parsed.error.issues).map((raw) => {
      // zod says only "Invalid key in record" for a bad table/column name; say what a name must be.
      const issue =
        raw.code === "invalid_key"
          ? {
              ...raw,
              message: `"${String(raw.path.at(-1))}" is not a valid name: use snake_case (a-z, 0-9, _)`,
            }
          : raw;
      const node = doc.getIn(issue.path, true);
      const offset = isNode(node) && node.range ? node.range[0] : undefined;
      const line = offset === undefined ? undefined : lineCounter.linePos(offset).line;
      return line === undefined ? issue : { ...issue, message: `${issue.message} (line ${line})` };
    });
    throw new ValidationError(`pipeline file ${file}`, issues);
  }
  return { ...parsed.data, file };
}
