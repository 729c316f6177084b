import { describe, expect, it } from "vitest";
import { parsePipeline } from "../../../engine/define/pipeline-file.js";
import { errorOf } from "../../helpers/errors.js";

const minimal = `name: t
skill: marketplace-search
params:
  seed: { required: true }
request:
  keyword: "{{seed}}"
records:
  path: products
  table: things
  key: [asin]
  columns:
    asin: text
`;

describe("pipeline-file errors people can act on", () => {
  it("refuses a template variable nothing defines, at its line, with the defined ones", () => {
    const e = errorOf(() => parsePipeline(minimal.replace("{{seed}}", "{{sed}}"), "/x/p.yaml"));
    expect(e.exitCode).toBe(2);
    expect(e.issues[0]?.path).toEqual(["request", "keyword"]);
    expect(e.message).toContain('{{sed}} is not defined (did you mean "seed"?)');
    expect(e.message).toMatch(/defines seed \(line 6\)/);
  });

  it("finds templates inside text, lists and paging settings", () => {
    const text = minimal
      .replace('keyword: "{{seed}}"', 'keyword: "k {{seed}} {{kind}}"\n  tags: ["{{tag}}"]')
      .replace("records:", 'paginate: { member: page, maxPages: "{{pages}}" }\nrecords:');
    const e = errorOf(() => parsePipeline(text, "/x/p.yaml"));
    expect(e.issues.map((i) => i.path.join("."))).toEqual([
      "request.keyword",
      "request.tags.0",
      "paginate.maxPages",
    ]);
  });

  it("accepts the input's name as a template variable", () => {
    const text = minimal.replace("records:", "input: { name: kw, from: { list: [a] } }\nrecords:");
    expect(() => parsePipeline(text.replace("{{seed}}", "{{kw}}"), "/x/p.yaml")).not.toThrow();
  });

  it("puts an unknown top-level key at its own line with the nearest allowed name", () => {
    const e = errorOf(() => parsePipeline(`${minimal}paginat: { member: page }\n`, "/x/p.yaml"));
    expect(e.issues[0]?.path).toEqual(["paginat"]);
    expect(e.message).toMatch(
      /paginat: unknown member "paginat" \(did you mean "paginate"\?\); allowed here: .*records.* \(line 13\)/,
    );
    expect(e.message).not.toContain("(root)");
  });

  it("lists the allowed types and suggests the nearest", () => {
    const e = errorOf(() =>
      parsePipeline(minimal.replace("asin: text", "asin: { type: integr }"), "/x/p.yaml"),
    );
    expect(e.message).toContain(
      'records.columns.asin.type: "integr" is not allowed (did you mean "integer"?); use one of: text, integer, number, decimal, boolean, date, timestamp, json (line 12)',
    );
    const float = errorOf(() =>
      parsePipeline(minimal.replace("seed: {", "seed: { type: float,"), "/x/p.yaml"),
    );
    expect(float.message).toMatch(
      /params\.seed\.type: "float" is not allowed; use one of: string, integer, number, boolean, date \(line 4\)/,
    );
  });
});

describe("param defaults", () => {
  it("a default its param's type refuses is a pipeline-file error naming the param, at its line", () => {
    const text = minimal.replace(
      "seed: { required: true }",
      "seed: { required: true }\n  count: { type: integer, default: two }",
    );
    const e = errorOf(() => parsePipeline(text, "/x/p.yaml"));
    expect(e.exitCode).toBe(2);
    expect(e.issues[0]?.path).toEqual(["params", "count", "default"]);
    expect(e.message).toContain(
      'default of param count: "two" is not a whole number (its type is integer) (line 5)',
    );
  });
});

describe("table names a database keeps for itself", () => {
  it("refuses sqlite_ and pg_ tables, children and views at their line, with a new name", () => {
    const text = minimal
      .replace("table: things", "table: sqlite_master")
      .replace(
        "    asin: text\n",
        "    asin: text\n  children:\n    - path: tags\n      table: pg_class\nviews:\n  - name: pg_tags\n    sql: select 1\n",
      );
    const e = errorOf(() => parsePipeline(text, "/x/p.yaml"));
    expect(e.exitCode).toBe(2);
    expect(e.message).toContain("invalid pipeline file /x/p.yaml:");
    expect(e.issues.map((i) => i.path.join("."))).toEqual([
      "records.table",
      "records.children.0.table",
      "views.0.name",
    ]);
    expect(e.message).toContain(
      'records.table: "sqlite_master" starts with sqlite_, which SQLite keeps for its own tables; rename it (e.g. "master_data") (line 9)',
    );
    expect(e.message).toMatch(
      /children\[0\]\.table: "pg_class" starts with pg_, which Postgres .* \(line 15\)/,
    );
    expect(e.message).toMatch(/views\[0\]\.name: "pg_tags" starts with pg_.* \(line 17\)/);
  });

  it("keeps names that only contain those prefixes", () => {
    const text = minimal.replace("table: things", "table: my_sqlite_pg_things");
    expect(parsePipeline(text, "/x/p.yaml").records.table).toBe("my_sqlite_pg_things");
  });
});
