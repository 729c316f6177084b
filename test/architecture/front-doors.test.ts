import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { typescriptBelow } from "./source-files.js";

// Every front door starts a run through one use-case, engine/start/start-run.ts: it chooses local
// or workers, makes the run and does what follows a load. So at most one file of the front doors
// (a composition root) may reach the runner, the after-run step or the workers' runner directly;
// a type import counts too (engine/start re-exports the types the front doors need).
const FRONT_DOORS = ["cli", "scheduler", "server", "mcp"];
const RUN_MODULES = ["engine/run/runner", "engine/publish/after-run", "engine/distribute/on-workers"];
const AT_MOST = 1;

/** The run modules a file imports or re-exports (static, type-only and dynamic imports alike). */
function runModulesImported(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => normalize(join(dirname(file), spec)).replace(/\.(js|ts)$/, ""))
    .filter((target) => RUN_MODULES.includes(target));
}

/** `file: module` for each front-door file that imports a run module. */
function directImports(files: { file: string; text: string }[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const { file, text } of files) {
    const modules = runModulesImported(file, text);
    if (modules.length) found.set(file, modules);
  }
  return found;
}

describe("the front doors (cli, scheduler, server, mcp)", () => {
  it(`start runs through engine/start: at most ${AT_MOST} file imports the runner, afterRun or the workers' runner`, () => {
    const files = FRONT_DOORS.flatMap(typescriptBelow).map((file) => ({
      file,
      text: readFileSync(file, "utf8"),
    }));
    const found = [...directImports(files)].map(([file, modules]) => `${file}: ${modules.join(", ")}`);
    expect(found.length, found.join("\n")).toBeLessThanOrEqual(AT_MOST);
  });

  it("the check sees static, type-only, dynamic and re-exporting imports, and leaves comments alone", () => {
    const found = directImports([
      { file: "cli/a.ts", text: 'import { runPipelines } from "../engine/run/runner.js";' },
      { file: "cli/commands/b.ts", text: 'import type { RunSummary } from "../../engine/run/runner.js";' },
      { file: "server/c.ts", text: 'const m = await import("../engine/distribute/on-workers.js");' },
      { file: "mcp/tools/d.ts", text: 'export { pushView } from "../../engine/publish/after-run.js";' },
      { file: "scheduler/e.ts", text: '// import { x } from "../engine/run/runner.js";' },
      { file: "scheduler/f.ts", text: 'import { startRun } from "../engine/start/start-run.js";' },
      { file: "cli/g.ts", text: 'import { runPipelines } from "../engine/run/runner-like.js";' },
    ]);
    expect([...found.keys()]).toEqual(["cli/a.ts", "cli/commands/b.ts", "server/c.ts", "mcp/tools/d.ts"]);
    expect(found.size).toBeGreaterThan(AT_MOST);
  });
});
