import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { READ_LIMITS, readBoundedBytes } from "../../core/bounded-read.js";
import { type Issue, ValidationError } from "../../core/errors.js";
import { type PipelineFile, pipelineSchema } from "../../schema/pipeline.js";
import { contextColumnIssues } from "./context-columns.js";
import { defaultIssues } from "./params.js";
import { undefinedTemplates } from "./template-check.js";
import { windowIssues } from "./windows/window-issues.js";
import { parseYamlWith } from "./yaml-document.js";

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
function resolvePipelineRef(ref: string): string {
  if (existsSync(ref)) return resolve(ref);
  const builtin = join(builtinPipelineDir(), extname(ref) ? basename(ref) : `${ref}.yaml`);
  if (/^[a-z0-9-]+(\.ya?ml)?$/.test(ref) && existsSync(builtin)) return builtin;
  throw new ValidationError("pipeline argument", [
    { path: [], message: `"${ref}" is neither a file nor a built-in pipeline (see \`skillsync pipelines\`)` },
  ]);
}

/** Reads and validates a pipeline file; errors carry the path inside the file and its line. */
export function loadPipeline(ref: string): LoadedPipeline {
  if (ref.includes("\0")) {
    throw new ValidationError("pipeline argument", [{ path: [], message: "contains a NUL byte" }]);
  }
  const file = resolvePipelineRef(ref);
  let text: string;
  try {
    text = readPipelineBytes(file).toString("utf8");
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    // A folder (EISDIR), a file that cannot be read: a usage error naming the path, not a crash.
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "EISDIR"
        ? "is a folder; give a pipeline file (.yaml)"
        : `cannot be read (${code ?? (err as Error).message})`;
    throw new ValidationError("pipeline argument", [{ path: [], message: `${file} ${why}` }]);
  }
  return parsePipeline(text, file);
}

/**
 * The bytes of a pipeline file, within READ_LIMITS: read again where a run hashes it or hands it
 * to workers, so a file swapped for a huge one meanwhile is refused there too.
 */
export function readPipelineBytes(file: string): Buffer {
  return readBoundedBytes(file, {
    maxBytes: READ_LIMITS.yamlFileBytes,
    what: `pipeline file ${file}`,
    instead:
      "a pipeline file is settings, not data: put long lists of inputs in a file (input.from.file) or a table (input.from.sql)",
  });
}

export function parsePipeline(text: string, file: string): LoadedPipeline {
  const data = parseYamlWith(
    text,
    `pipeline file ${file}`,
    pipelineSchema,
    (p) => [
      ...defaultIssues(p.params),
      ...undefinedTemplates(p),
      ...windowIssues(p),
      ...reportModeIssues(p),
      ...contextColumnIssues(p),
    ],
    namingRule,
  );
  return { ...withTableDescription(data), file };
}

/** The pipeline's description is its table's comment where `records` gives none of its own. */
function withTableDescription(p: PipelineFile): PipelineFile {
  const description = p.records.description ?? p.description;
  return description === undefined ? p : { ...p, records: { ...p.records, description } };
}

/** A report's rows are its parts' CSV rows, written as they stream: not as versions. */
function reportModeIssues(p: PipelineFile): Issue[] {
  if (!p.report || p.records.mode !== "history") return [];
  return [
    {
      path: ["records", "mode"],
      message: "a report pipeline loads in mode merge, replace or append, not history",
    },
  ];
}

/** zod says only "Invalid key in record" for a bad table/column name; say what a name must be. */
function namingRule(issue: Issue): Issue {
  if (issue.code !== "invalid_key") return issue;
  return {
    ...issue,
    message: `"${String(issue.path.at(-1))}" is not a valid name: use snake_case (a-z, 0-9, _)`,
  };
}
