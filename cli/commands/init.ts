import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { tablesMadeBy } from "../../engine/run/make-tables.js";
import { SLUG_PATTERN } from "../../schema/catalog.js";
import { tableName } from "../init/records-part.js";
import { starterText } from "../init/starter.js";
import { printLine } from "../output.js";

interface InitOptions {
  out?: string | undefined;
  force?: boolean | undefined;
  name?: string | undefined;
}

const usage = (message: string) => new SkillsyncError("USAGE", message, ExitCode.usage);

/** What of a built-in pipeline `name` (and the table named after it) would take, if anything. */
function shadowed(name: string): string | undefined {
  const builtins = listBuiltinPipelines().map((f) => loadPipeline(f));
  if (builtins.some((p) => p.name === name)) return `${name} is a built-in pipeline's name`;
  const table = tableName(name);
  if (tablesMadeBy(builtins).includes(table)) return `${table} is a table or view of the built-in pipelines`;
  return undefined;
}

/**
 * The pipeline's name: `--name`, else the slug, else (the slug being a built-in's name or table)
 * `my-<slug>`. A file sharing a built-in's name or table would make runs of each alter the other's
 * table: `--name` naming one is refused.
 */
function pipelineName(skill: string, flag: string | undefined): { name: string; why?: string } {
  if (flag !== undefined) {
    if (!SLUG_PATTERN.test(flag) || flag.length > 100)
      throw usage(
        `--name "${flag}" is not a pipeline name (lowercase words joined by hyphens, at most 100 characters)`,
      );
    const taken = shadowed(flag);
    if (taken)
      throw usage(`--name ${flag}: ${taken}; a file of your own takes another, e.g. --name my-${flag}`);
    return { name: flag };
  }
  const taken = shadowed(skill);
  if (!taken) return { name: skill };
  const name = `my-${skill}`;
  if (shadowed(name)) throw usage(`${taken}, and so is my-${skill}: choose a name with --name NAME`);
  return { name, why: `${taken}, which a file of your own never shares (--name chooses another)` };
}

/**
 * Writes a starting pipeline file for an operation (`<name>.yaml` in the working folder, or
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
  const { name, why } = pipelineName(skill, opts.name);
  const file = resolve(opts.out ?? `${name}.yaml`);
  const text = starterText(skill, file, name);
  try {
    // "wx" refuses an existing file in the same step that creates it: nothing is overwritten by a race.
    writeFileSync(file, text, { flag: opts.force ? "w" : "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw usage(`${file} exists; --force overwrites it`);
    throw usage(`${file} cannot be written (${code ?? (err as Error).message})`);
  }
  if (why) printLine(`named it ${name} (table ${tableName(name)}): ${why}`);
  printLine(`wrote ${file}: edit it, then \`skillsync plan ${file}\` (add the --param values it asks for)`);
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("write a starting pipeline file for an operation, from the catalog")
    .argument("[skill]", "operation slug, e.g. marketplace-search (see `skillsync tools`)")
    .option(
      "--name <name>",
      "the pipeline's name, its table named after it (default: the skill; my-<skill> where that is a built-in's)",
    )
    .option("--out <file>", "where to write it (default: <name>.yaml in the working folder)")
    .option("--force", "overwrite the file when it exists")
    .action((skill: string | undefined, opts: InitOptions) => runInit(skill, opts));
}
