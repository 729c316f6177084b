import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listBuiltinPipelines, loadPipeline, parsePipeline } from "../../../engine/define/pipeline-file.js";
import { pipelineJsonSchema } from "../../../schema/pipeline.js";
import { errorOf } from "../../helpers/errors.js";
import { tempDir } from "../../helpers/temp-dir.js";

const minimal = `name: t
skill: marketplace-search
records:
  path: products
  table: things
  key: [asin]
  columns:
    asin: text
`;

describe("pipeline files", () => {
  it("loads every built-in pipeline", () => {
    const files = listBuiltinPipelines();
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const f of files) expect(loadPipeline(f).records.table).toMatch(/^[a-z_]+$/);
  });

  it("finds built-ins by name", () => {
    expect(loadPipeline("marketplace-search").skill).toBe("marketplace-search");
  });

  it("reports a YAML syntax error with its line and exit code 2", () => {
    const e = errorOf(() => parsePipeline(`${minimal}name: again\n`, "/x/p.yaml"));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("/x/p.yaml");
    expect(e.message).toMatch(/unique.*line 9, column 1/);
  });

  it("reports a schema error with the path inside the file and its line", () => {
    const e = errorOf(() => parsePipeline(minimal.replace("key: [asin]", "key: asin"), "/x/p.yaml"));
    expect(e.issues[0]?.path).toEqual(["records", "key"]);
    expect(e.message).toMatch(/records\.key: .*\(line 6\)/);
  });

  it("rejects unknown members, SQL in table names and reserved prefixes", () => {
    expect(errorOf(() => parsePipeline(`${minimal}colour: red\n`, "p")).message).toMatch(
      /colour|unrecognized/i,
    );
    const sqlName = errorOf(() =>
      parsePipeline(minimal.replace("table: things", 'table: "x; drop table y"'), "p"),
    );
    expect(sqlName.issues[0]?.path).toEqual(["records", "table"]);
    expect(
      errorOf(() => parsePipeline(minimal.replace("table: things", "table: skillsync_runs"), "p")).message,
    ).toMatch(/reserved/);
    expect(errorOf(() => parsePipeline(minimal.replace("asin: text", '"a b": text'), "p")).message).toMatch(
      /snake_case/,
    );
  });

  it("requires a key for merge and for child tables", () => {
    const e = errorOf(() => parsePipeline(minimal.replace("  key: [asin]\n", ""), "p"));
    expect(e.message).toMatch(/mode merge and mode history need a key/);
  });

  it("refuses an unknown pipeline name", () => {
    expect(errorOf(() => loadPipeline("no-such-pipeline")).message).toMatch(/neither a file nor a built-in/);
  });

  it("keeps schema/pipeline.schema.json in step with the zod schema (npm run schema)", () => {
    const file = new URL("../../../schema/pipeline.schema.json", import.meta.url);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(JSON.stringify(pipelineJsonSchema())));
  });

  it("reads a pipeline from a file path", () => {
    const dir = tempDir("pl");
    writeFileSync(join(dir, "mine.yaml"), minimal);
    expect(loadPipeline(join(dir, "mine.yaml")).file).toBe(join(dir, "mine.yaml"));
  });
});
