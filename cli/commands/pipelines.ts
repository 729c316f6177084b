import type { Command } from "commander";
import { listBuiltinPipelines, loadPipeline } from "../../engine/define/pipeline-file.js";
import { printJson, printTable } from "../output.js";

export function registerPipelinesCommand(program: Command): void {
  program
    .command("pipelines")
    .description("list the built-in pipelines with their skill, params and table")
    .option("--json", "print JSON")
    .action((flags: { json?: boolean }) => {
      const list = listBuiltinPipelines().map((f) => {
        const p = loadPipeline(f);
        return { name: p.name, skill: p.skill, params: Object.keys(p.params), table: p.records.table };
      });
      if (flags.json) printJson(list);
      else printTable(list.map((p) => ({ ...p, params: p.params.join(", ") })));
    });
}
