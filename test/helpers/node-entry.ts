import { existsSync } from "node:fs";
import { bundledPath } from "./bundle.js";

/** Where the suite's global setup put the bundles (test/global-setup.ts, test/reliability/global-setup.ts). */
export const BUNDLE_DIR_ENV = "SKILLSYNC_TEST_BUNDLE_DIR";

/** The sources the tests start as processes: each suite's global setup compiles each once. */
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
