/**
 * Writes docs/pipelines.md from the pipeline files: `npm run readme [-- PATH] [--check]`
 * (`--check`: exit 1 when the page is stale, write nothing).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipelinesPage } from "./pipelines-page.js";

const args = process.argv.slice(2);
const check = args.includes("--check");
const file = args.find((a) => !a.startsWith("--")) ?? join(import.meta.dirname, "..", "docs", "pipelines.md");
const current = existsSync(file) ? readFileSync(file, "utf8") : "";
const next = pipelinesPage();
if (next === current) {
  process.stdout.write(`${file} is current\n`);
} else if (check) {
  process.stderr.write(`${file} is stale: run \`npm run readme\`\n`);
  process.exit(1);
} else {
  writeFileSync(file, next);
  process.stdout.write(`${file} rewritten\n`);
}
