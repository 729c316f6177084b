import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { SLUG_PATTERN } from "../../schema/catalog.js";
import { starterText } from "../init/starter.js";
import { printLine } from "../output.js";

interface InitOptions {
  out?: string | undefined;
  force?: boolean | undefined;
}

const usage = (message: string) => new SkillsyncError("USAGE", message, ExitCode.usage);

/**
 * Writes a starting pipeline file for an operation (`<skill>.yaml` in the working folder, or
 * `--out`), which `skillsync plan` reads as written. An existing file is kept unless `--force`.
 *
 * @example await main(["init", "marketplace-search"]); // writes ./marketplace-search.yaml
 */
function runInit(skill: string | undefined, opts: InitOptions): void {
  if (!skill) {
    throw usage(
      "init needs an operation slug: skillsync init SKILL, e.g. skillsync init marketplace-search (`skillsync tools` lists the documented operations)",
    );
  }
  if (!SLUG_PATTERN.test(skill)) {
    throw usage(
      `"${skill}" is not an operation slug (lowercase words joined by hyphens; see \`skillsync tools\`)`,
    );
  }
  const file = resolve(opts.out ?? `${skill}.yaml`);
  const text = starterText(skill, file);
  try {
    // "wx" refuses an existing file in the same step that creates it: nothing is overwritten by a race.
    writeFileSync(file, text, { flag: opts.force ? "w" : "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw usage(`${file} exists; --force overwrites it`);
    throw usage(`${file} cannot be written (${code ?? (err as Error).message})`);
  }
  printLine(`wrote ${file}: edit it, then \`skillsync plan ${file}\` (add the --param values it asks for)`);
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("write a starting pipeline file for an operation, from the catalog")
    .argument("[skill]", "operation slug, e.g. marketplace-search (see `skillsync tools`)")
    .option("--out <file>", "where to write it (default: <skill>.yaml in the working folder)")
    .option("--force", "overwrite the file when it exists")
    .action((skill: string | undefined, opts: InitOptions) => runInit(skill, opts));
}
