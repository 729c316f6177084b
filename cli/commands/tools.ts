import type { Command } from "commander";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { catalog, type PriceUnit } from "../../schema/catalog.js";
import { buildOpenApi } from "../../schema/documents/openapi.js";
import { buildToolList } from "../../schema/documents/tools.js";
import { printJson, printTable } from "../output.js";

const TOOLS_FORMATS = ["list", "tools", "openapi"] as const;
const priceLabel = (price: PriceUnit) =>
  "perCall" in price ? `${price.perCall} credit(s) per call` : `${price.perItem} credit(s) per identifier`;

/**
 * Prints the documented operations: `list` (a table), `tools` (the tool list document) or
 * `openapi` (the OpenAPI 3.1.0 document), the documents as JSON on stdout.
 *
 * @example
 * await main(["tools", "--format", "openapi"]); // stdout: {"openapi":"3.1.0",…}
 */
function runTools(format: string): void {
  if (!(TOOLS_FORMATS as readonly string[]).includes(format)) {
    throw new SkillsyncError(
      "USAGE",
      `unknown --format "${format}" for tools: use one of ${TOOLS_FORMATS.join(", ")}`,
      ExitCode.usage,
    );
  }
  if (format === "openapi") printJson(buildOpenApi());
  else if (format === "tools") printJson(buildToolList());
  else printOperationTable();
}

function printOperationTable(): void {
  const rows = [...catalog.values()].map((op) => ({
    slug: op.slug,
    tool: op.tool,
    family: op.family,
    "default price": priceLabel(op.defaultPrice),
  }));
  printTable(rows, ["slug", "tool", "family", "default price"]);
}

export function registerToolsCommand(program: Command): void {
  program
    .command("tools")
    .description("print the documented operations: a table, the tool list document or the OpenAPI document")
    .option("--format <format>", `what to print: ${TOOLS_FORMATS.join(" | ")}`, "list")
    .action((opts: { format: string }) => runTools(opts.format));
}
