import { existsSync } from "node:fs";
import { bundledPath } from "./bundle.js";

/** Where test/global-setup.ts put the bundles (unset when a suite has no such setup). */
export const BUNDLE_DIR_ENV = "SKILLSYNC_TEST_BUNDLE_DIR";

/** The sources the main suite starts as processes: global-setup.ts compiles each once. */
export const SPAWNED_SOURCES = [
  "cli/run.ts",
  "test/engine/run-child.ts",
  "test/engine/reports/report-child.ts",
] as const;

/**
 * The arguments after `node` that run a source file with `args`: its bundle when the suite made
 * one (a fraction of a second to start), else the source under tsx (seconds of compiling).
 *
 * @example spawn(process.execPath, nodeEntry("cli/run.ts", "serve", "--port", "0"))
 */
export function nodeEntry(source: (typeof SPAWNED_SOURCES)[number], ...args: string[]): string[] {
  const dir = process.env[BUNDLE_DIR_ENV];
  const bundle = dir ? bundledPath(dir, source) : undefined;
  if (bundle && existsSync(bundle)) return [bundle, ...args];
  return ["--import", "tsx", source, ...args];
}
