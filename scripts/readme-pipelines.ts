/**
 * Rewrites the README's pipelines block from the pipeline files:
 * `node --import tsx scripts/readme-pipelines.ts [README path] [--check]` (`--check`: exit 1 when
 * the block is stale, write nothing).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  describePipelines,
  README_END,
  README_START,
  replacePipelinesBlock,
} from "../pipelines/engine/describe.js";

const args = process.argv.slice(2);
const check = args.includes("--check");
const file = args.find((a) => !a.startsWith("--")) ?? join(import.meta.dirname, "..", "README.md");
const readme = readFileSync(file, "utf8");
const next = replacePipelinesBlock(readme, describePipelines());
if (next === undefined) {
  process.stderr.write(`${file} has no ${README_START} … ${README_END} block; add the two markers first\n`);
  process.exit(1);
}
if (next === readme) {
  process.stdout.write("README pipelines block is current\n");
} else if (check) {
  process.stderr.write(
    "README pipelines block is stale: run `node --import tsx scripts/readme-pipelines.ts`\n",
  );
  process.exit(1);
} else {
  writeFileSync(file, next);
  process.stdout.write("README pipelines block rewritten\n");
}
