import { closest, distance } from "fastest-levenshtein";

/**
 * The few error classes of skillsync. Each has a stable `code` (for programs and tests) and an
 * exit code (for the CLI). Details stay as data (`issues`) and are formatted only at the edge.
 */

/** CLI exit codes: the contract every command keeps. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  ceiling: 3,
  auth: 4,
  /** The run finished but rejected records (`rejects: allow` or `--allow-rejects` accepts that). */
  warnings: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One problem in some input, located by a path inside it (and a file/line where there is one). */
export interface Issue {
  path: (string | number)[];
  message: string;
  code?: string;
}

export class SkillsyncError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  constructor(code: string, message: string, exitCode: ExitCode = ExitCode.failure, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** Bad input: a request, a pipeline file, a param, a price file or CLI arguments. Nothing was sent. */
export class ValidationError extends SkillsyncError {
  readonly issues: Issue[];
  /** Where the input came from: a slug, a file path, `--param`… */
  readonly source: string;
  constructor(source: string, issues: Issue[], options?: ErrorOptions) {
    super("VALIDATION", formatIssues(source, issues), ExitCode.usage, options);
    this.source = source;
    this.issues = issues;
  }
}

/** A setting that names nothing usable: a warehouse that is not there or not a database. Nothing was sent. */
export class ConfigurationError extends SkillsyncError {
  constructor(message: string, options?: ErrorOptions) {
    super("CONFIGURATION", message, ExitCode.usage, options);
  }
}

/** A run stopped because reserving the next call would pass a credit ceiling (resumable). */
export class CreditCeilingError extends SkillsyncError {
  readonly ceiling: string;
  constructor(ceiling: string, message: string) {
    super("CREDIT_CEILING", message, ExitCode.ceiling);
    this.ceiling = ceiling;
  }
}

export function formatIssues(source: string, issues: Issue[]): string {
  const lines = issues.slice(0, 8).map((i) => {
    if (i.path.length === 0) return `  ${i.message}`;
    const where = i.path.map((p) => (typeof p === "number" ? `[${p}]` : p)).join(".");
    return `  ${where.replaceAll(".[", "[")}: ${i.message}`;
  });
  const more = issues.length > 8 ? [`  … and ${issues.length - 8} more`] : [];
  return [`invalid ${source}:`, ...lines, ...more].join("\n");
}

/** A zod issue as far as we read it (zod's own type is not imported into core). */
export interface ZodIssueLike {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  /** `unrecognized_keys`: the members no schema names. */
  keys?: readonly string[];
  /** `invalid_value`: the values allowed. */
  values?: readonly unknown[];
  /** `invalid_union`: each alternative's issues, paths relative to the union. */
  errors?: readonly (readonly ZodIssueLike[])[];
}

/** How to word issues: the input (to quote what was given) and the members allowed at a path. */
export interface IssueContext {
  input?: unknown;
  knownKeys?: (path: (string | number)[]) => string[];
}

/**
 * Turns zod issues into ours, so errors stay data until the CLI prints them: one issue per unknown
 * member (at the member's own path, with the allowed ones and the nearest), allowed values listed,
 * and of a union's alternatives the one that got furthest instead of zod's bare "Invalid input".
 */
export function fromZodIssues(issues: readonly ZodIssueLike[], ctx: IssueContext = {}): Issue[] {
  return issues.flatMap((i) => describeIssue(i, [], ctx));
}

function describeIssue(i: ZodIssueLike, prefix: (string | number)[], ctx: IssueContext): Issue[] {
  const path = [...prefix, ...i.path.map((p) => (typeof p === "number" ? p : String(p)))];
  const code = i.code ? { code: i.code } : {};
  if (i.code === "unrecognized_keys" && i.keys) {
    const known = ctx.knownKeys?.(path) ?? [];
    return i.keys.map((key) => ({
      path: [...path, key],
      message:
        `unknown member "${key}"${didYouMean(key, known)}` +
        (known.length ? `; allowed here: ${known.join(", ")}` : ""),
      ...code,
    }));
  }
  if (i.code === "invalid_value" && i.values) {
    const allowed = i.values.map(String);
    const given = valueAt(ctx.input, path);
    const what = typeof given === "string" ? `"${given}" is not allowed` : "not an allowed value";
    const hint = typeof given === "string" ? didYouMean(given, allowed) : "";
    return [{ path, message: `${what}${hint}; use one of: ${allowed.join(", ")}`, ...code }];
  }
  if (i.code === "invalid_union" && i.errors?.length) {
    const branch = furthest(i.errors);
    if (branch.length) return branch.flatMap((b) => describeIssue(b, path, ctx));
  }
  return [{ path, message: i.message, ...code }];
}

/** Of a union's alternatives, the one whose issues reach deepest into the input (the first on a tie). */
function furthest(branches: readonly (readonly ZodIssueLike[])[]): readonly ZodIssueLike[] {
  const depth = (b: readonly ZodIssueLike[]) => Math.max(-1, ...b.map((i) => i.path.length));
  return branches.reduce((best, b) => (depth(b) > depth(best) ? b : best), branches[0] ?? []);
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** ` (did you mean "seed"?)` when a known name is near the given one. */
export function didYouMean(given: string, known: readonly string[]): string {
  const best = nearestName(given, known);
  return best ? ` (did you mean "${best}"?)` : "";
}

/** The known name nearest to a mistyped one, when it is near enough to be what was meant. */
function nearestName(given: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(given, [...known]);
  const d = distance(given, best);
  // Two edits (a swapped pair: "form" for "from") or a third of the name, never most of it.
  return d < given.length && d <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}
