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
    const where =
      i.path.length > 0 ? i.path.map((p) => (typeof p === "number" ? `[${p}]` : p)).join(".") : "(root)";
    return `  ${where.replaceAll(".[", "[")}: ${i.message}`;
  });
  const more = issues.length > 8 ? [`  … and ${issues.length - 8} more`] : [];
  return [`invalid ${source}:`, ...lines, ...more].join("\n");
}

/** Turns zod issues into ours, so errors stay data until the CLI prints them. */
export function fromZodIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string }[],
): Issue[] {
  return issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "number" ? p : String(p))),
    message: i.message,
    ...(i.code ? { code: i.code } : {}),
  }));
}
