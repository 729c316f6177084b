/**
 * Bad pipeline files: a small valid pipeline, broken one way at a time. Each says what the error
 * must name (the file, and the member path or line inside it).
 */
export const GOOD_PIPELINE = `name: mini-market
skill: marketplace-search
params:
  keyword: { repeatable: true, required: true }
  pages: { type: integer, default: 1, min: 1, max: 5 }
input: { name: keyword, from: { param: keyword } }
request: { keyword: "{{keyword}}" }
paginate: { member: page, maxPages: "{{pages}}" }
freshness: 12h
records:
  path: products
  table: mini_products
  key: [keyword, item_index]
  mode: merge
  columns:
    keyword: { from: $request.keyword }
    item_index: { from: $index, type: integer }
    asin: text
    price: { from: price, type: number, transform: money }
`;

export interface PipelineCase {
  name: string;
  /** The whole file, or a replacement of one line of GOOD_PIPELINE: [find, replace]. */
  text: string | [string, string];
  /** What the message must say (beyond the file name). */
  where: RegExp;
  /** Extra files next to the pipeline. */
  files?: Record<string, string>;
}

const line = (find: string, replace: string): [string, string] => [find, replace];

export const PIPELINE_CASES: PipelineCase[] = [
  {
    name: "yaml: unclosed flow mapping",
    text: line('request: { keyword: "{{keyword}}" }', 'request: { keyword: "{{keyword}}"'),
    where: /line \d+/,
  },
  {
    name: "yaml: tab indentation",
    text: line("  path: products", "\tpath: products"),
    where: /line \d+|tab/i,
  },
  {
    name: "yaml: duplicate key",
    text: line("freshness: 12h", "freshness: 12h\nfreshness: 1h"),
    where: /line \d+|unique|duplicate/i,
  },
  {
    name: "yaml: unterminated string",
    text: line("skill: marketplace-search", 'skill: "marketplace-search'),
    where: /line \d+/,
  },
  {
    name: "yaml: alias bomb",
    text: `a: &a ["x","x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`,
    where: /alias|resource|excessive/i,
  },
  { name: "empty file", text: "", where: /\(root\)|expected object/i },
  { name: "a list, not a mapping", text: "- name: x\n- skill: y\n", where: /\(root\)|expected object/i },
  { name: "a scalar, not a mapping", text: "just text\n", where: /\(root\)|expected object/i },
  {
    name: "unknown top-level key",
    text: line("freshness: 12h", "freshness: 12h\ncolums: {}"),
    where: /colums|unrecognized/i,
  },
  {
    name: "unknown key in records",
    text: line("  mode: merge", "  mode: merge\n  tabel: x"),
    where: /records.*tabel|tabel/,
  },
  {
    name: "unknown key in a param",
    text: line(
      "  pages: { type: integer, default: 1, min: 1, max: 5 }",
      "  pages: { type: integer, default: 1, min: 1, max: 5, secret: true }",
    ),
    where: /params\.pages|secret/,
  },
  { name: "name with capitals", text: line("name: mini-market", "name: Mini_Market"), where: /name/ },
  { name: "name far too long", text: line("name: mini-market", `name: ${"a".repeat(300)}`), where: /name/ },
  {
    name: "skill is not a slug",
    text: line("skill: marketplace-search", 'skill: "Marketplace Search"'),
    where: /skill/,
  },
  { name: "skill is a number", text: line("skill: marketplace-search", "skill: 42"), where: /skill/ },
  {
    name: "SQL in the table name",
    text: line("  table: mini_products", '  table: "x; drop table skillsync_runs; --"'),
    where: /records\.table/,
  },
  {
    name: "quoted identifier as table",
    text: line("  table: mini_products", '  table: "\\"mini\\".\\"products\\""'),
    where: /records\.table/,
  },
  {
    name: "table in the toolkit's namespace",
    text: line("  table: mini_products", "  table: skillsync_runs"),
    where: /records\.table.*reserved|reserved/,
  },
  {
    name: "table name with a dot",
    text: line("  table: mini_products", "  table: public.products"),
    where: /records\.table/,
  },
  {
    name: "table name too long",
    text: line("  table: mini_products", `  table: ${"t".repeat(64)}`),
    where: /records\.table/,
  },
  {
    name: "SQL in a column name",
    text: line("    asin: text", '    "asin) values (1); drop table x; --": text'),
    where: /records\.columns|not a valid name/,
  },
  {
    name: "column name with a space",
    text: line("    asin: text", '    "a sin": text'),
    where: /records\.columns|not a valid name/,
  },
  {
    name: "column name in capitals",
    text: line("    asin: text", "    ASIN: text"),
    where: /records\.columns|not a valid name/,
  },
  {
    name: "unknown column type",
    text: line("    asin: text", "    asin: varchar(20)"),
    where: /records\.columns\.asin/,
  },
  {
    name: "unknown transform",
    text: line(
      "    price: { from: price, type: number, transform: money }",
      "    price: { from: price, type: number, transform: eval }",
    ),
    where: /records\.columns\.price/,
  },
  {
    name: "key names a missing column",
    text: line("  key: [keyword, item_index]", "  key: [keyword, nope]"),
    where: /records.*key|nope/,
  },
  {
    name: "merge without a key",
    text: line("  key: [keyword, item_index]", "  key: []"),
    where: /records|key/,
  },
  { name: "unknown write mode", text: line("  mode: merge", "  mode: upsert"), where: /records\.mode/ },
  {
    name: "freshness is not a duration",
    text: line("freshness: 12h", "freshness: soon"),
    where: /freshness/,
  },
  { name: "freshness is negative", text: line("freshness: 12h", "freshness: -5"), where: /freshness/ },
  {
    name: "maxCredits negative",
    text: line("freshness: 12h", "freshness: 12h\nmaxCredits: -10"),
    where: /maxCredits/,
  },
  {
    name: "maxCredits a string",
    text: line("freshness: 12h", 'freshness: 12h\nmaxCredits: "lots"'),
    where: /maxCredits/,
  },
  {
    name: "maxCredits huge (infinity)",
    text: line("freshness: 12h", "freshness: 12h\nmaxCredits: .inf"),
    where: /maxCredits/,
  },
  {
    name: "concurrency zero",
    text: line("freshness: 12h", "freshness: 12h\nconcurrency: 0"),
    where: /concurrency/,
  },
  {
    name: "concurrency huge",
    text: line("freshness: 12h", "freshness: 12h\nconcurrency: 100000"),
    where: /concurrency/,
  },
  {
    name: "batch of 101 identifiers",
    text: line('paginate: { member: page, maxPages: "{{pages}}" }', "batch: { member: keyword, size: 101 }"),
    where: /batch\.size/,
  },
  {
    name: "batch over 60000 characters",
    text: line(
      'paginate: { member: page, maxPages: "{{pages}}" }',
      "batch: { member: keyword, maxChars: 60001 }",
    ),
    where: /batch\.maxChars/,
  },
  {
    name: "maxPages negative",
    text: line(
      'paginate: { member: page, maxPages: "{{pages}}" }',
      "paginate: { member: page, maxPages: -1 }",
    ),
    where: /paginate\.maxPages/,
  },
  {
    name: "maxPages a free expression",
    text: line(
      'paginate: { member: page, maxPages: "{{pages}}" }',
      'paginate: { member: page, maxPages: "{{pages}} * 1000" }',
    ),
    where: /paginate\.maxPages/,
  },
  {
    name: "paginate style unknown",
    text: line(
      'paginate: { member: page, maxPages: "{{pages}}" }',
      'paginate: { member: page, style: cursor, maxPages: "{{pages}}" }',
    ),
    where: /paginate\.style/,
  },
  {
    name: "param of an unknown type",
    text: line("  pages: { type: integer, default: 1, min: 1, max: 5 }", "  pages: { type: uuid }"),
    where: /params\.pages\.type/,
  },
  {
    name: "param name with a dash",
    text: line("  pages: { type: integer, default: 1, min: 1, max: 5 }", "  page-count: { type: integer }"),
    where: /params|page-count|not a valid name/,
  },
  {
    name: "input name with a space",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      'input: { name: "key word", from: { param: keyword } }',
    ),
    where: /input\.name/,
  },
  {
    name: "input source unknown",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { url: 'http://x' } }",
    ),
    where: /input\.from/,
  },
  {
    name: "input list empty",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { list: [] } }",
    ),
    where: /input\.from/,
  },
  {
    name: "file input leaving the folder (..)",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { file: ../../../../etc/passwd } }",
    ),
    where: /input\.from\.file.*leaves the pipeline's folder/,
  },
  {
    name: "file input by absolute path",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { file: /etc/hostname } }",
    ),
    where: /input\.from\.file.*leaves the pipeline's folder/,
  },
  {
    name: "file input through a nested ..",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { file: lists/../../secret.txt } }",
    ),
    where: /input\.from\.file.*leaves the pipeline's folder/,
    files: { "lists.txt": "x\n" },
  },
  {
    name: "file input that does not exist",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { file: missing.txt } }",
    ),
    where: /input\.from\.file.*no file/,
  },
  {
    name: "file input CSV without the column",
    text: line(
      "input: { name: keyword, from: { param: keyword } }",
      "input: { name: keyword, from: { file: k.csv, column: kw } }",
    ),
    where: /column.*kw|kw/,
    files: { "k.csv": "keyword\nusb hub\n" },
  },
  {
    name: "request is a string",
    text: line('request: { keyword: "{{keyword}}" }', 'request: "keyword={{keyword}}"'),
    where: /request/,
  },
  { name: "records.path a number", text: line("  path: products", "  path: 7"), where: /records\.path/ },
  {
    name: "child table with SQL in its name",
    text: line(
      "    price: { from: price, type: number, transform: money }",
      '    price: { from: price, type: number, transform: money }\n  children:\n    - { path: tags, table: "t;drop", columns: { value: text } }',
    ),
    where: /records\.children.*table|children/,
  },
  {
    name: "extra column with SQL in its name",
    text: line("  mode: merge", '  mode: merge\n  extra: "extra; drop"'),
    where: /records\.extra/,
  },
  {
    name: "view with SQL in its name",
    text: line("freshness: 12h", 'freshness: 12h\nviews:\n  - { name: "v; drop table x", sql: "select 1" }'),
    where: /views.*name|views/,
  },
  {
    name: "schedule that is not cron",
    text: line("freshness: 12h", 'freshness: 12h\nschedule: { cron: "every day" }'),
    where: /schedule/,
  },
];
