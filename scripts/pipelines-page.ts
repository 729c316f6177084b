import { type LoadedPipeline, listBuiltinPipelines, loadPipeline } from "../engine/define/pipeline-file.js";
import { compileMapping } from "../engine/normalize/mapping.js";
import type { InputSource, ParamDef } from "../schema/pipeline.js";
import type { TableDef } from "../schema/table.js";

// Markdown table cells: one line, no stray pipes.
const cell = (text: string) => text.replace(/\s+/g, " ").replaceAll("|", "\\|").trim();
const code = (text: string) => `\`${text}\``;

function paramType(def: ParamDef): string {
  const base = def.enum ? def.enum.map((v) => code(v)).join(" \\| ") : def.type;
  const bounds = def.min !== undefined || def.max !== undefined ? ` ${def.min ?? ""}..${def.max ?? ""}` : "";
  return `${base}${bounds}${def.repeatable ? ", repeatable" : ""}${def.required ? ", required" : ""}`;
}

function paramDefault(def: ParamDef): string {
  if (def.default === undefined) return "";
  return (Array.isArray(def.default) ? def.default : [def.default]).map((v) => code(String(v))).join(", ");
}

function sourceText(s: InputSource): string {
  if ("param" in s) return `param ${code(s.param)}`;
  if ("list" in s) return `a fixed list of ${s.list.length}`;
  if ("file" in s) return `file ${code(s.file)}${s.column ? ` column ${code(s.column)}` : ""}`;
  if ("sql" in s) return "a SQL query over the warehouse";
  return `sheet ${code(s.sheet.range)}`;
}

function inputText(p: LoadedPipeline): string {
  if (!p.input) return "one call";
  const sources = Array.isArray(p.input.from) ? p.input.from : [p.input.from];
  const from = sources.map(sourceText).join(", else ");
  const batch = p.batch ? `, up to ${p.batch.size} per call in ${code(p.batch.member)}` : "";
  return `${code(p.input.name)} from ${from}${batch}`;
}

const META = new Set(["run_id", "loaded_at"]);

function tableLine(t: TableDef, child: boolean, inferred: boolean): string {
  const cols = t.columns
    .filter((c) => !META.has(c.name))
    .map((c) => `${c.name} ${c.type}`)
    .join(", ");
  const key = t.key.length ? ` (key ${t.key.join(", ")})` : "";
  const more = inferred ? "; more columns inferred from the data" : "";
  return `${child ? "  - child " : "- "}${code(t.name)}${key}: ${cols}${more}`;
}

/** The markdown section of one pipeline: skill, input, params table, tables and views. */
export function describePipeline(p: LoadedPipeline): string {
  const mapping = compileMapping(p.records);
  const lines = [`### ${code(p.name)}`, ""];
  if (p.description) lines.push(cell(p.description), "");
  // Report pipelines (asynchronous operations) carry a `report` block: created once, polled, parts downloaded.
  const report = (p as { report?: { status: string; download: string } }).report;
  const async = report
    ? ` · report polled with ${code(report.status)}, parts from ${code(report.download)}`
    : "";
  const paging = p.paginate ? ` · paged by ${code(p.paginate.member)} (${p.paginate.style})` : "";
  const w = p.window;
  const windows = w
    ? ` · date windows of ${code(w.step)} from ${code(w.start)} to ${code(w.end)}${w.lookback ? `, lookback ${w.lookback}` : ""}`
    : "";
  lines.push(
    `Skill ${code(p.skill)} · input ${inputText(p)}${windows}${paging}${async} · responses reused for ${p.freshness} · ${mapping.mode} into ${code(mapping.table.name)}`,
    "",
  );
  const params = Object.entries(p.params);
  if (params.length) {
    lines.push("| Param | Type | Default | Description |", "|---|---|---|---|");
    for (const [name, def] of params)
      lines.push(
        `| ${code(name)} | ${paramType(def)} | ${paramDefault(def)} | ${cell(def.description ?? "")} |`,
      );
    lines.push("");
  }
  lines.push("Tables:", "", tableLine(mapping.table, false, p.records.inferColumns));
  for (const child of mapping.children) lines.push(tableLine(child, true, p.records.inferColumns));
  if (p.views.length) lines.push("", `Views: ${p.views.map((v) => code(v.name)).join(", ")}`);
  return lines.join("\n");
}

/**
 * Markdown for every built-in pipeline (the files in pipelines/): docs/pipelines.md is generated
 * from it whole, so it cannot drift.
 *
 * @example describePipelines().includes("### `ip-tro-check`") // true
 */
export function describePipelines(files: string[] = listBuiltinPipelines()): string {
  const intro =
    "Generated from the files in `pipelines/` by `npm run readme` (scripts/docs-pipelines.ts). Every table also has " +
    "`run_id` and `loaded_at`; `extra` (JSON) keeps the members no column names. A table with " +
    '"more columns inferred from the data" gains a column for each member its answers bring ' +
    "([Columns from the data](pipeline-files.md#columns-from-the-data-infercolumns)).\n\n" +
    "These pipelines call 23 operations the contract details. The catalog's other 149 are reached by their slug, " +
    "in a pipeline file of your own or with `skillsync call`: " +
    "[Operations beyond the documented 23](pipeline-files.md#operations-beyond-the-documented-23).";
  return [intro, ...files.map((f) => describePipeline(loadPipeline(f)))].join("\n\n");
}

/** docs/pipelines.md, whole. */
export function pipelinesPage(files: string[] = listBuiltinPipelines()): string {
  return `# Built-in pipelines\n\n${describePipelines(files)}\n`;
}
